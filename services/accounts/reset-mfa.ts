// POST /api/users/{id}/reset-mfa (docs/administration.md, "Resetting two-step verification"): an administrator
// (or platform staff, with a reason: account-actor.ts) removes a user's second factors — the authenticator app
// (and a pending one), every backup code and every passkey, as the user's own MFA disable does (mfa-disable.ts)
// — ends all their sessions, records `user.mfa_reset` in the organization's security log (actor and user both
// named; staff also in the backoffice audit log) and returns the email that tells the user (`mfa_reset`, in their
// language, with the sign-in link), which the caller sends after the commit. When the organization requires
// two-step verification, the user's next sign-in is MFA enrolment (sessions.ts `signInState`).
// The rules for an administrator are those of every action on another user (administration.ts): not on
// themselves, an owner only by an owner, nobody who holds a permission the administrator lacks.

import type { AppUser } from '../../db/entities/index.ts';
import { MfaBackupCode, Passkey, Role, Team } from '../../db/entities/index.ts';
import {
  checkMayActOn,
  findUserOf,
  isOwnerRole,
  lockOrganization,
} from '../administration/administration.ts';
import { type UserView, userView } from '../administration/views.ts';
import { recordBackofficeEvent } from '../backoffice/audit-log.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict, Forbidden } from '../errors.ts';
import { type AccountActor, organizationIdOf, staffReason } from './account-actor.ts';
import { type AccountEmail, accountEmailTo, accountLink } from './account-emails.ts';
import { lockedUser } from './locked-user.ts';
import { recordSecurityEvent } from './security-log.ts';
import { endUserSessions, permissionsOf } from './sessions.ts';

export type ResetMfaContext = Pick<ServiceContext, 'em' | 'config' | 'clock'>;

export interface MfaReset {
  /** The user as the list shows them now (`mfaEnabled: false`). */
  user: UserView;
  /** The `mfa_reset` email to the user, to send once the change has committed (`sendAccountEmailLater`). */
  email: AccountEmail;
}

/** The administrator's rules (platform staff have none but the reason). */
function checkMayReset(
  actor: Extract<AccountActor, { kind: 'organization_user' }>['actor'],
  user: AppUser,
  role: Role,
) {
  if (!actor.permissions.includes('users:manage')) {
    throw new Forbidden('Resetting two-step verification takes the users:manage permission.', [
      { field: 'params.id', permission: 'users:manage', message: 'your role lacks users:manage' },
    ]);
  }
  if (user.id === actor.user.id) {
    throw new Conflict(
      'You cannot reset your own two-step verification here: change it on your profile, or ask another administrator.',
      [{ field: 'params.id', message: 'your own account' }],
      'cannot_change_self',
    );
  }
  if (isOwnerRole(role) && !isOwnerRole(actor.role)) {
    throw new Forbidden("Only an owner may reset an owner's two-step verification.", [
      { field: 'params.id', message: 'the user is an owner' },
    ]);
  }
  checkMayActOn(actor, user, permissionsOf(role));
}

export async function resetMfa(ctx: ResetMfaContext, actor: AccountActor, userId: string): Promise<MfaReset> {
  const organizationId = organizationIdOf(actor);
  const reason = actor.kind === 'platform_staff' ? staffReason(actor) : null;
  const done = await ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
    await lockOrganization(tx, organizationId);
    const found = await findUserOf(tx, organizationId, userId);
    // The user's row lock: a second-factor change or check of theirs in flight finishes first (locked-user.ts).
    const user = await lockedUser(tx, found.id);
    const role = await tx.findOneOrFail(Role, { id: user.roleId });
    if (actor.kind === 'organization_user') checkMayReset(actor.actor, user, role);
    if (user.status === 'invited') {
      throw new Conflict(
        `${user.email} has not accepted the invitation yet: there is no two-step verification to reset.`,
        [{ field: 'params.id', message: 'the user is invited' }],
        'invitation_pending',
      );
    }
    const passkeys = await tx.count(Passkey, { userId: user.id });
    if (!user.totpEnabledAt && passkeys === 0) {
      throw new Conflict(
        `${user.email} has no two-step verification (no authenticator app, no passkey): there is nothing to reset.`,
        [{ field: 'params.id', message: 'two-step verification is off' }],
        'mfa_not_enabled',
      );
    }
    const hadAuthenticatorApp = user.totpEnabledAt != null;
    user.totpSecretEncrypted = null;
    user.totpPendingSecretEncrypted = null;
    user.totpEnabledAt = null;
    await tx.flush();
    const backupCodesRemoved = await tx.nativeDelete(MfaBackupCode, { userId: user.id });
    const passkeysRemoved = await tx.nativeDelete(Passkey, { userId: user.id });
    const sessionsEnded = await endUserSessions(txCtx, user.id, 'mfa_reset');
    const removed = {
      authenticatorApp: hadAuthenticatorApp,
      backupCodesRemoved,
      passkeysRemoved,
      sessionsEnded,
    };
    recordSecurityEvent(txCtx, {
      organizationId,
      type: 'user.mfa_reset',
      actorUserId: actor.kind === 'organization_user' ? actor.actor.user.id : null,
      subjectUserId: user.id,
      subjectEmail: user.email,
      ipAddress: actor.kind === 'organization_user' ? (actor.actor.ipAddress ?? null) : actor.ipAddress,
      details:
        actor.kind === 'organization_user'
          ? removed
          : { ...removed, byPlatformStaff: actor.admin.email, reason },
    });
    if (actor.kind === 'platform_staff') {
      recordBackofficeEvent(
        txCtx,
        { kind: 'platform_admin', admin: actor.admin, ipAddress: actor.ipAddress },
        {
          action: 'user.mfa_reset',
          targetId: user.id,
          details: { organizationId, email: user.email, reason, ...removed },
        },
      );
    }
    await tx.flush();
    const team = user.teamId ? await tx.findOne(Team, { id: user.teamId }) : null;
    const email = await accountEmailTo(tx, user, 'mfa_reset', accountLink(ctx.config, 'sign-in'));
    return { user, role, team, email };
  });
  return { user: userView(done.user, done.role, done.team, false), email: done.email };
}
