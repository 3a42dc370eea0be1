// What a member of the backoffice staff looked at or did in an organization (docs/backoffice.md, "Support access
// recorded"): one entry in the backoffice audit log and one `support.accessed` event in the organization's
// security log (services/accounts/security-log.ts), so its owner sees who of the staff looked at what, when and
// why. Both are added to the caller's unit of work and written with its flush.

import { recordSecurityEvent } from '../accounts/security-log.ts';
import type { SessionClock } from '../accounts/sessions.ts';
import type { DataContext } from '../context.ts';
import { type BackofficeActor, recordBackofficeEvent } from './audit-log.ts';

export type StaffActor = Extract<BackofficeActor, { kind: 'platform_admin' }> & {
  admin: { role?: string };
};

export interface StaffAccess {
  organizationId: string;
  /** `envelope.viewed`, `envelope.contents_viewed`, `envelope.<repair>`, … */
  action: string;
  /** The envelope (or user) it concerns. */
  targetId: string;
  /** Why, as the member of staff gave it; null when the view needs none. */
  reason: string | null;
  details?: Record<string, unknown>;
}

export function recordStaffAccess(
  ctx: DataContext & SessionClock,
  actor: StaffActor,
  access: StaffAccess,
): void {
  const details = {
    ...access.details,
    ...(access.reason === null ? {} : { reason: access.reason }),
  };
  recordBackofficeEvent(ctx, actor, {
    action: access.action,
    targetId: access.targetId,
    details: { organizationId: access.organizationId, ...details },
  });
  recordSecurityEvent(ctx, {
    organizationId: access.organizationId,
    type: 'support.accessed',
    // The staff's own network address stays in the backoffice audit log.
    ipAddress: null,
    details: {
      action: access.action,
      targetId: access.targetId,
      staff: actor.admin.email,
      staffRole: actor.admin.role ?? 'administrator',
      ...details,
    },
  });
}
