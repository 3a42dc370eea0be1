// Organization users: list, invite, resend invitation, change role, team or status, delete
// (docs/administration.md).
import { InviteUserRequest, Ok, UpdateUserRequest, UserView } from '../../../domain/account.ts';
import { UserListPage, UserListQuery } from '../../../domain/users-list.ts';
import { type AccountEmail, sendAccountEmailLater } from '../../../services/accounts/account-emails.ts';
import { resendInvitation } from '../../../services/accounts/resend-invitation.ts';
import { resetMfa } from '../../../services/accounts/reset-mfa.ts';
import { deleteUser } from '../../../services/administration/delete-user.ts';
import { type InvitedUser, inviteUser } from '../../../services/administration/invite-user.ts';
import { listUsers } from '../../../services/administration/list-users.ts';
import { updateUser } from '../../../services/administration/update-user.ts';
import { type AppContext, areaRoute, procedure, router, thenOk } from '../init.ts';
import { actorOf, IdParams } from './administration-actor.ts';

const route = areaRoute('users');

/**
 * The invited user. Its email goes out after the answer, so that the answer's time does not tell an invitation
 * from a notice to the holder of an address taken elsewhere; a failed one is logged (without its link): it can
 * be sent again (resend-invitation).
 */
function invited(ctx: AppContext, result: InvitedUser) {
  if (result.email) {
    emailLater(ctx, result.user.id, result.email, 'the user can be sent it again (resend-invitation)');
  }
  return result.user;
}

/** Sends an account email after the answer; a failure is logged (the kind and error, never the link). */
function emailLater(ctx: AppContext, userId: string, email: AccountEmail, remedy: string) {
  const log = ctx.log;
  sendAccountEmailLater(ctx.services, email, (sent) => {
    if (sent.outcome.status === 'failed') {
      log.warn(
        { userId, accountEmail: sent.kind, error: sent.outcome.error },
        `the ${sent.kind} email could not be sent; ${remedy}`,
      );
    }
  });
}

/** The rule every action on another user follows (services/administration/administration.ts). */
const ABOVE_CALLER =
  'the user holds a permission the caller’s role lacks (`details[].permission` names each): nobody acts on ' +
  'a user who holds more than they do';

export const usersRouter = router({
  list: procedure
    .meta(
      route('GET', '/api/users', {
        summary: "The organization's users",
        description:
          'Every user but deleted ones, invited users included (status `invited`), by name unless `sort` says ' +
          'otherwise (then by id), `limit` (1 to 100, default 50) from `offset`; `total` counts every match and ' +
          '`nextOffset` is the next page’s offset (null: no more). `search`: every word occurs in the name or ' +
          'the address, without regard to case; `roleId`, `teamId` (`none`: without a team) and `status` ' +
          '(`active`, `invited`, `deactivated`, or `locked`: sign-in locked now after wrong passwords) filter.',
        access: 'users:read',
      }),
    )
    .input(UserListQuery)
    .output(UserListPage)
    .query(({ ctx, input }) => listUsers(ctx.services, actorOf(ctx), input)),

  invite: procedure
    .meta(
      route('POST', '/api/users/invite', {
        summary: 'Invite a user',
        description:
          'Creates an `invited` user with the role (and team) given and emails them a link to ' +
          '`/app/accept-invite` that works for 7 days, once. The plan limits active and invited users. ' +
          'Only an owner gives the owner role; nobody gives a role with permissions they lack.',
        access: 'users:manage',
        errors: {
          403: 'The owner role given by a non-owner, or a role with permissions the caller lacks',
          409:
            '`email_taken`: a user of this organization has the address; `plan_limit`: the plan allows no more ' +
            'users. An address with an account in another organization is invited like any other (the answer ' +
            'does not tell): its holder is emailed instead of a link',
        },
      }),
    )
    .input(InviteUserRequest)
    .output(UserView)
    .mutation(async ({ ctx, input }) => invited(ctx, await inviteUser(ctx.services, actorOf(ctx), input))),

  resendInvitation: procedure
    .meta(
      route('POST', '/api/users/{id}/resend-invitation', {
        summary: 'Send an invitation again',
        description:
          'A new link (7 days); the earlier one stops working. At most 3 resends of an invitation an hour.',
        access: 'users:manage',
        errors: {
          403: `The role lacks users:manage, or MFA enrolment comes first; or ${ABOVE_CALLER}`,
          404: 'No such user in this organization',
          409: '`not_invited`: the user has accepted',
          429: '`rate_limited`: sent again 3 times within the hour; wait Retry-After seconds',
        },
      }),
    )
    .input(IdParams)
    .output(UserView)
    .mutation(async ({ ctx, input }) =>
      invited(
        ctx,
        await resendInvitation(ctx.services, { kind: 'organization_user', actor: actorOf(ctx) }, input.id),
      ),
    ),

  resetMfa: procedure
    .meta(
      route('POST', '/api/users/{id}/reset-mfa', {
        summary: "Reset a user's two-step verification",
        description:
          'Removes the user’s authenticator app, backup codes and passkeys, ends all their sessions, records ' +
          '`user.mfa_reset` in the security log and emails the user. If the organization requires two-step ' +
          'verification, their next sign-in sets it up again.',
        access: 'users:manage',
        errors: {
          403: `The role lacks users:manage, or MFA enrolment comes first; an owner reset by a non-owner; or ${ABOVE_CALLER}`,
          404: 'No such user in this organization',
          409:
            '`cannot_change_self`: your own (use your profile); `invitation_pending`: the user has not accepted; ' +
            '`mfa_not_enabled`: the user has no second factor',
        },
      }),
    )
    .input(IdParams)
    .output(UserView)
    .mutation(async ({ ctx, input }) => {
      const reset = await resetMfa(
        ctx.services,
        { kind: 'organization_user', actor: actorOf(ctx) },
        input.id,
      );
      emailLater(
        ctx,
        reset.user.id,
        reset.email,
        'the user was signed out and can still sign in with their password',
      );
      return reset.user;
    }),

  update: procedure
    .meta(
      route('PUT', '/api/users/{id}', {
        summary: "Change a user's role, team or status",
        description:
          'Absent fields stay; `teamId: null` removes the team; `status` `deactivated` refuses sign-in and ' +
          '`active` lets the user in again. A role change or a deactivation ends the user’s sessions.',
        access: 'users:manage',
        errors: {
          403:
            'The owner role given or taken, or an owner deactivated, by a non-owner; a role with permissions the ' +
            `caller lacks; or ${ABOVE_CALLER} (any change, a team move included)`,
          404: 'No such user in this organization',
          409:
            '`last_owner`: the last active owner; `cannot_change_self`: deactivating yourself; ' +
            '`invitation_pending`: the status of an invited user; `plan_limit`: reactivating beyond the plan',
        },
      }),
    )
    .input(UpdateUserRequest.extend(IdParams.shape))
    .output(UserView)
    .mutation(({ ctx, input }) => {
      const { id, ...changes } = input;
      return updateUser(ctx.services, actorOf(ctx), id, changes);
    }),

  delete: procedure
    .meta(
      route('DELETE', '/api/users/{id}', {
        summary: 'Delete a user',
        description:
          'The user can no longer sign in and their address is free again; their name stays in the ' +
          'security log and wherever they acted.',
        access: 'users:manage',
        errors: {
          403: `An owner deleted by a non-owner, or ${ABOVE_CALLER}`,
          404: 'No such user in this organization',
          409: '`last_owner`: the last active owner; `cannot_change_self`: yourself',
        },
      }),
    )
    .input(IdParams)
    .output(Ok)
    .mutation(thenOk(({ ctx, input }) => deleteUser(ctx.services, actorOf(ctx), input.id))),
});
