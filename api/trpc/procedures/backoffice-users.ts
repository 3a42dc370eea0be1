// An organization's users in the backoffice (docs/backoffice.md, "Users of an organization"): the list, and one
// route per action platform staff take on a user — each with a required reason, recorded in the backoffice audit
// log and the organization's security log; the user is emailed where it concerns them (the verification link).

import { BackofficeOrganizationIdParameter } from '../../../domain/backoffice-organizations.ts';
import {
  BackofficeOrganizationUserList,
  BackofficeOrganizationUserParameters,
  BackofficeReason,
  BackofficeUserActionAnswer,
  BackofficeUserListQuery,
} from '../../../domain/backoffice-users.ts';
import { type AccountEmail, sendAccountEmail } from '../../../services/accounts/account-emails.ts';
import { resendInvitation } from '../../../services/accounts/resend-invitation.ts';
import { resetMfa } from '../../../services/accounts/reset-mfa.ts';
import {
  deactivateUser,
  listOrganizationUsers,
  requireLiveOrganization,
  resendUserVerification,
  resultOf,
  type StaffAction,
  type StaffActionResult,
  unlockUser,
} from '../../../services/backoffice/organization-users.ts';
import { type AppContext, procedure, router } from '../init.ts';
import { backofficeActorOf, backofficeRoute } from './backoffice-actor.ts';

const NOT_FOUND = 'No such organization (or it is deleted), or no such user in it';
const BASE = '/api/backoffice/organizations/{id}/users/{userId}' as const;
const Input = BackofficeReason.extend(BackofficeOrganizationUserParameters.shape);

/** The accounts' use cases' platform-staff actor (services/accounts/account-actor.ts). */
function accountStaff(ctx: AppContext, input: { id: string; reason: string }) {
  const actor = backofficeActorOf(ctx);
  return {
    kind: 'platform_staff' as const,
    admin: actor.admin,
    organizationId: input.id,
    reason: input.reason,
    ipAddress: actor.ipAddress,
  };
}

function staffAction(ctx: AppContext, input: { id: string; userId: string; reason: string }): StaffAction {
  return {
    actor: backofficeActorOf(ctx),
    organizationId: input.id,
    userId: input.userId,
    reason: input.reason,
  };
}

/** Sends the action's email once its change has committed; `emailed` says whether it went. */
async function answer(
  ctx: AppContext,
  result: { user: StaffActionResult['user']; email: AccountEmail | null },
) {
  if (!result.email) return { user: result.user, emailed: false };
  const outcome = await sendAccountEmail(
    { em: ctx.services.em.fork(), config: ctx.services.config },
    result.email,
  );
  if (outcome.status === 'failed') {
    ctx.log.warn(
      { userId: result.user.id, accountEmail: result.email.kind, error: outcome.error },
      'a backoffice action’s email could not be sent',
    );
  }
  return { user: result.user, emailed: outcome.status === 'sent' };
}

export const backofficeUsersRouter = router({
  list: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/organizations/{id}/users', {
        summary: 'An organization’s users',
        description:
          'Every user but deleted ones, invited users included, by name, a page at a time (`nextCursor` reads the ' +
          'next). `search`: part of the name or email (any case); `status`: `invited`, `active` or ' +
          '`deactivated`. Each user says whether their address is verified and until when their sign-in is ' +
          'locked after failed attempts (`lockedUntil`).',
        errors: { 404: 'No such organization' },
      }),
    )
    .input(BackofficeUserListQuery.extend(BackofficeOrganizationIdParameter.shape))
    .output(BackofficeOrganizationUserList)
    .query(({ ctx, input }) => {
      const { id, ...query } = input;
      return listOrganizationUsers(ctx.services, backofficeActorOf(ctx), id, query);
    }),

  resetMfa: procedure
    .meta(
      backofficeRoute('POST', `${BASE}/reset-mfa`, {
        summary: 'Reset a user’s two-step verification',
        description:
          'Removes the authenticator app, every backup code and every passkey and ends the user’s sessions, as ' +
          'an organization administrator’s reset does (docs/administration.md); the user is emailed ' +
          '(`mfa_reset`). 409 `invitation_pending` for an invited user, `mfa_not_enabled` when there is ' +
          'nothing to reset. Recorded with the reason (`user.mfa_reset`) in both logs.',
        errors: { 404: NOT_FOUND, 409: 'Invited, or two-step verification is off' },
      }),
    )
    .input(Input)
    .output(BackofficeUserActionAnswer)
    .mutation(async ({ ctx, input }) => {
      await requireLiveOrganization(ctx.services, input.id);
      const reset = await resetMfa(ctx.services, accountStaff(ctx, input), input.userId);
      return answer(
        ctx,
        await resultOf(ctx.services, { organizationId: input.id, userId: input.userId }, reset.email),
      );
    }),

  resendInvitation: procedure
    .meta(
      backofficeRoute('POST', `${BASE}/resend-invitation`, {
        summary: 'Email an invited user a new invitation link',
        description:
          'As the organization’s administration resends (docs/administration.md, "Invitations"): only the new ' +
          'link works, for 7 days; at most 3 resends of one invitation an hour (429). 409 `not_invited` when ' +
          'the user has accepted. Recorded with the reason (`user.invitation_resent`) in both logs.',
        errors: {
          404: NOT_FOUND,
          409: 'The user has accepted the invitation (`not_invited`)',
          429: '`rate_limited`: sent again 3 times within the hour; wait Retry-After seconds',
        },
      }),
    )
    .input(Input)
    .output(BackofficeUserActionAnswer)
    .mutation(async ({ ctx, input }) => {
      await requireLiveOrganization(ctx.services, input.id);
      const resent = await resendInvitation(ctx.services, accountStaff(ctx, input), input.userId);
      return answer(
        ctx,
        await resultOf(ctx.services, { organizationId: input.id, userId: input.userId }, resent.email),
      );
    }),

  unlock: procedure
    .meta(
      backofficeRoute('POST', `${BASE}/unlock`, {
        summary: 'Unlock a user’s sign-in locked after failed attempts',
        description:
          'Ends the lock and forgets the failed attempts, so the user can sign in at once. 409 `not_locked` when ' +
          'the sign-in is not locked. Recorded with the reason (`user.unlocked`) in the backoffice audit log and ' +
          'the organization’s security log.',
        errors: { 404: NOT_FOUND, 409: 'The sign-in is not locked (`not_locked`)' },
      }),
    )
    .input(Input)
    .output(BackofficeUserActionAnswer)
    .mutation(async ({ ctx, input }) => answer(ctx, await unlockUser(ctx.services, staffAction(ctx, input)))),

  resendVerification: procedure
    .meta(
      backofficeRoute('POST', `${BASE}/resend-verification`, {
        summary: 'Email an active user a new link to verify their address',
        description:
          'Earlier links stop working. 409 `not_unverified` for an invited or deactivated user or an address ' +
          'already verified. Recorded with the reason (`user.verification_resent`) in both logs.',
        errors: { 404: NOT_FOUND, 409: 'Not an active user with an unverified address (`not_unverified`)' },
      }),
    )
    .input(Input)
    .output(BackofficeUserActionAnswer)
    .mutation(async ({ ctx, input }) =>
      answer(ctx, await resendUserVerification(ctx.services, staffAction(ctx, input))),
    ),

  deactivate: procedure
    .meta(
      backofficeRoute('POST', `${BASE}/deactivate`, {
        summary: 'Deactivate a user',
        description:
          'As the organization’s administration does: sign-in is refused and the user’s sessions end. 409 ' +
          '`invitation_pending` for an invited user, `already_deactivated`, or `last_owner` for the ' +
          'organization’s last active owner. Recorded with the reason (`user.deactivated`) in both logs.',
        errors: { 404: NOT_FOUND, 409: 'Invited, already deactivated, or the last active owner' },
      }),
    )
    .input(Input)
    .output(BackofficeUserActionAnswer)
    .mutation(async ({ ctx, input }) =>
      answer(ctx, await deactivateUser(ctx.services, staffAction(ctx, input))),
    ),
});
