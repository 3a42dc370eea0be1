// Who acts on another user's account (docs/administration.md, "Acting on a user"): an administrator of the user's
// organization (the application routes), or platform staff from the backoffice, who must give a reason. The use
// cases that take it (reset-mfa.ts, resend-invitation.ts) apply the organization's rank rules to the first, and
// record the second in both the organization's security log and the backoffice audit log.
import type { PlatformAdmin } from '../../db/entities/index.ts';
import type { Actor } from '../administration/administration.ts';
import { InvalidRequest } from '../errors.ts';

/** The longest reason platform staff may give (it is stored in both logs). */
export const STAFF_REASON_MAX_LENGTH = 500;

export type AccountActor =
  /** A signed-in user of the organization whose user is acted on (its `organization` scopes every lookup). */
  | { kind: 'organization_user'; actor: Actor }
  /** Platform staff (a backoffice administrator), acting on a user of `organizationId` for `reason`. */
  | {
      kind: 'platform_staff';
      admin: Pick<PlatformAdmin, 'id' | 'email'>;
      organizationId: string;
      reason: string;
      ipAddress: string | null;
    };

/** The organization whose user is acted on. */
export const organizationIdOf = (actor: AccountActor) =>
  actor.kind === 'organization_user' ? actor.actor.organization.id : actor.organizationId;

/** Platform staff's reason, trimmed; 400 naming `body.reason` when it is missing or too long. */
export function staffReason(actor: Extract<AccountActor, { kind: 'platform_staff' }>): string {
  const reason = actor.reason.trim();
  if (reason.length === 0 || reason.length > STAFF_REASON_MAX_LENGTH) {
    throw new InvalidRequest(
      `Invalid request: body.reason: say why (1 to ${STAFF_REASON_MAX_LENGTH} characters); it is recorded.`,
      [{ field: 'body.reason', message: `1 to ${STAFF_REASON_MAX_LENGTH} characters` }],
    );
  }
  return reason;
}
