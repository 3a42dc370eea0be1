// DELETE /api/users/{id}: a soft delete. The row stays, with its name, so the security log, audit trails and
// whatever names the user stay attributable; its status becomes `deleted`, its address is freed (replaced by
// `deleted+<id>@invalid`; the original address is kept in the `user.deleted` event), its credentials are
// cleared (password, authenticator app, backup codes, passkeys), its sessions end and its unused emailed links stop working. Nobody deletes themselves, only an
// owner deletes an owner, nobody deletes a user who holds a permission they lack, and the last active owner
// cannot be deleted.
import { AccountToken, MfaBackupCode, Passkey, Role } from '../../db/entities/index.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { endUserSessions, nowOf, permissionsOf } from '../accounts/sessions.ts';
import { Conflict, Forbidden } from '../errors.ts';
import {
  type Actor,
  checkMayActOn,
  countActiveOwners,
  findUserOf,
  isOwnerRole,
  lastOwner,
  lockOrganization,
} from './administration.ts';
import type { AdministrationContext } from './invite-user.ts';

/** The address a deleted user keeps: unique, and never deliverable (`.invalid` is reserved, RFC 2606). */
export const deletedAddress = (userId: string) => `deleted+${userId}@invalid`;

export async function deleteUser(ctx: AdministrationContext, actor: Actor, userId: string): Promise<void> {
  const { organization } = actor;
  await ctx.em.transactional(async (tx) => {
    const services = { ...ctx, em: tx };
    await lockOrganization(tx, organization.id);
    const user = await findUserOf(tx, organization.id, userId);
    if (user.id === actor.user.id) {
      throw new Conflict('You cannot delete yourself: another administrator can.', [], 'cannot_change_self');
    }
    const role = await tx.findOneOrFail(Role, { id: user.roleId });
    if (isOwnerRole(role) && !isOwnerRole(actor.role)) {
      throw new Forbidden('Only an owner may delete an owner.');
    }
    checkMayActOn(actor, user, permissionsOf(role));
    if (
      isOwnerRole(role) &&
      user.status === 'active' &&
      (await countActiveOwners(tx, organization.id, role.id)) <= 1
    ) {
      throw lastOwner('delete this one');
    }
    const now = nowOf(ctx);
    const originalEmail = user.email;
    const previousStatus = user.status;
    user.status = 'deleted';
    user.deletedAt = now;
    user.email = deletedAddress(user.id);
    user.passwordHash = null;
    user.totpSecretEncrypted = null;
    user.totpPendingSecretEncrypted = null;
    user.totpEnabledAt = null;
    recordActorEvent(services, actor, {
      type: 'user.deleted',
      subjectUserId: user.id,
      subjectEmail: originalEmail,
      details: { role: role.name, status: previousStatus },
    });
    await tx.flush();
    await tx.nativeDelete(MfaBackupCode, { userId: user.id });
    await tx.nativeDelete(Passkey, { userId: user.id });
    await tx.nativeUpdate(AccountToken, { userId: user.id, usedAt: null }, { usedAt: now });
    await endUserSessions(services, user.id, 'user_deleted');
  });
}
