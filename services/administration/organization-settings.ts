// GET /api/organization/settings: the organization's settings (docs/administration.md says where each one
// is used).
import type { OrganizationSettings } from '../../domain/account.ts';
import type { Actor } from './administration.ts';
import { settingsView } from './views.ts';

export function organizationSettings(actor: Actor): OrganizationSettings {
  return settingsView(actor.organization);
}
