// Organization settings and the security log (docs/administration.md).
import {
  OrganizationSettings,
  SecurityLog,
  SecurityLogQuery,
  UpdateOrganizationSettingsRequest,
} from '../../../domain/account.ts';
import { listSecurityLog } from '../../../services/administration/list-security-log.ts';
import { organizationSettings } from '../../../services/administration/organization-settings.ts';
import { updateOrganizationSettings } from '../../../services/administration/update-organization-settings.ts';
import { areaRoute, procedure, router } from '../init.ts';
import { actorOf } from './administration-actor.ts';

const route = areaRoute('organization');

export const organizationRouter = router({
  settings: procedure
    .meta(
      route('GET', '/api/organization/settings', {
        summary: "The organization's settings",
        access: 'settings:read',
      }),
    )
    .output(OrganizationSettings)
    .query(({ ctx }) => organizationSettings(actorOf(ctx))),

  updateSettings: procedure
    .meta(
      route('PUT', '/api/organization/settings', {
        summary: "Change the organization's settings",
        description:
          'A partial update: an absent field stays as it is, null clears it (its default applies). A refused ' +
          'field changes nothing.',
        access: 'settings:manage',
      }),
    )
    .input(UpdateOrganizationSettingsRequest)
    .output(OrganizationSettings)
    .mutation(({ ctx, input }) => updateOrganizationSettings(ctx.services, actorOf(ctx), input)),

  securityLog: procedure
    .meta(
      route('GET', '/api/organization/security-log', {
        summary: "The organization's security log",
        description:
          'Newest first; `limit` events (default 50, at most 200) before the event `before` (the ' +
          '`nextBefore` of the previous page).',
        access: 'security:read',
        errors: { 404: '`before` is not an event of this organization’s log' },
      }),
    )
    .input(SecurityLogQuery)
    .output(SecurityLog)
    .query(({ ctx, input }) => listSecurityLog(ctx.services, actorOf(ctx), input)),
});
