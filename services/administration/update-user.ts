// PUT /api/users/{id}: a user's role, team (null removes it) and status (`deactivated` refuses sign-in,
// `active` lets them in again). The rules (docs/administration.md): only an owner gives or takes the owner
// role or deactivates an owner; nobody changes anything of a user who holds a permission they lack, nor gives
// a role with permissions they do not hold; the last active owner
// can be neither demoted nor deactivated; nobody deactivates themselves; reactivating takes a seat of the
// plan. A role change or a deactivation ends the user's sessions: a privilege change means signing in again.
import { Role, Team } from '../../db/entities/index.ts';
import { UpdateUserRequest } from '../../domain/account.ts';
import { countPasskeys } from '../accounts/passkey-webauthn.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { endUserSessions, permissionsOf } from '../accounts/sessions.ts';
import { Conflict, Forbidden } from '../errors.ts';
import { parseInput } from '../validation.ts';
import {
  type Actor,
  checkMayActOn,
  checkMayGrant,
  countActiveOwners,
  findUserOf,
  isOwnerRole,
  lastOwner,
  lockOrganization,
  requirePlanRoom,
  roleNamedIn,
  teamNamedIn,
} from './administration.ts';
import type { AdministrationContext } from './invite-user.ts';
import { type UserView, userView } from './views.ts';

export async function updateUser(
  ctx: AdministrationContext,
  actor: Actor,
  userId: string,
  input: unknown,
): Promise<UserView> {
  const data = parseInput(UpdateUserRequest, input, 'user');
  const { organization } = actor;
  return ctx.em.transactional(async (tx) => {
    const services = { ...ctx, em: tx };
    await lockOrganization(tx, organization.id);
    const user = await findUserOf(tx, organization.id, userId);
    const currentRole = await tx.findOneOrFail(Role, { id: user.roleId });
    const currentTeam = user.teamId ? await tx.findOne(Team, { id: user.teamId }) : null;

    const newRole =
      data.roleId !== undefined && data.roleId !== user.roleId
        ? await roleNamedIn(tx, organization.id, data.roleId)
        : null;
    const teamChanges = data.teamId !== undefined && data.teamId !== user.teamId;
    const newTeam = teamChanges && data.teamId ? await teamNamedIn(tx, organization.id, data.teamId) : null;
    const newStatus = data.status !== undefined && data.status !== user.status ? data.status : null;

    if (newStatus && user.status === 'invited') {
      throw new Conflict(
        `${user.email} has not accepted the invitation yet, so there is no account to ${newStatus === 'active' ? 'activate' : 'deactivate'}: delete the user to withdraw the invitation.`,
        [{ field: 'body.status', message: 'the user is invited' }],
        'invitation_pending',
      );
    }
    if (newStatus === 'deactivated' && user.id === actor.user.id) {
      throw new Conflict(
        'You cannot deactivate yourself: another administrator can.',
        [{ field: 'body.status', message: 'your own account' }],
        'cannot_change_self',
      );
    }
    const ownerTouched = isOwnerRole(currentRole) && (newRole !== null || newStatus !== null);
    if (ownerTouched && !isOwnerRole(actor.role)) {
      throw new Forbidden('Only an owner may change the role or the status of an owner.', [
        { field: newRole ? 'body.roleId' : 'body.status', message: 'the user is an owner' },
      ]);
    }
    // Nobody acts on a user who holds more than they do, whatever the change (a team move included).
    checkMayActOn(actor, user, permissionsOf(currentRole));
    if (newRole) checkMayGrant(actor, newRole, permissionsOf(newRole));

    const losesOwner =
      isOwnerRole(currentRole) &&
      user.status === 'active' &&
      ((newRole !== null && !isOwnerRole(newRole)) || newStatus === 'deactivated');
    if (losesOwner && (await countActiveOwners(tx, organization.id, currentRole.id)) <= 1) {
      throw lastOwner(newStatus === 'deactivated' ? 'deactivate this one' : 'give this one another role');
    }
    if (newStatus === 'active') {
      await requirePlanRoom(tx, organization, 'users');
    }

    const event = { subjectUserId: user.id, subjectEmail: user.email };
    const changes: Record<string, unknown> = {};
    if (newRole) {
      changes.role = { from: currentRole.name, to: newRole.name };
      user.roleId = newRole.id;
    }
    if (teamChanges) {
      changes.team = { from: currentTeam?.name ?? null, to: newTeam?.name ?? null };
      user.teamId = newTeam?.id ?? null;
    }
    if (Object.keys(changes).length > 0) {
      recordActorEvent(services, actor, { ...event, type: 'user.updated', details: changes });
    }
    if (newStatus) {
      user.status = newStatus;
      recordActorEvent(services, actor, {
        ...event,
        type: newStatus === 'deactivated' ? 'user.deactivated' : 'user.reactivated',
      });
    }
    await tx.flush();
    if (newStatus === 'deactivated') await endUserSessions(services, user.id, 'deactivated');
    else if (newRole) await endUserSessions(services, user.id, 'role_changed');
    const hasPasskey = (await countPasskeys(services, user.id)) > 0;
    return userView(user, newRole ?? currentRole, teamChanges ? newTeam : currentTeam, hasPasskey);
  });
}
