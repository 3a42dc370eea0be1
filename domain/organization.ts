// An organization's and an OAuth client's shape as a caller creates them (the operator CLI today, the
// application's registration and Integrations area next).
import { z } from 'zod';
import { safeText } from './common.ts';
import { SCOPES } from './scopes.ts';
import { PLAN_NAMES, SUPPORTED_LANGUAGES } from './vocabulary.ts';

export const CreateOrganizationRequest = z.object({
  name: safeText().trim().min(1, 'name is required').max(200),
  plan: z.enum(PLAN_NAMES, { message: `plan must be one of ${PLAN_NAMES.join(', ')}` }),
  apiEnabled: z.boolean().default(false),
  defaultLanguage: z.enum(SUPPORTED_LANGUAGES).default('en'),
});
export type CreateOrganizationRequest = z.input<typeof CreateOrganizationRequest>;

export const CreateOAuthClientRequest = z.object({
  name: safeText().trim().min(1, 'name is required').max(200),
  scopes: z
    .array(z.enum(SCOPES, { message: `each scope must be one of: ${SCOPES.join(' ')}` }))
    .min(1, 'at least one scope is required')
    .transform((scopes) => [...new Set(scopes)]),
  /** One address or CIDR range per entry; blank entries are ignored. Empty: any source. */
  ipAllowlist: z.array(safeText().max(100)).max(500).default([]),
});
export type CreateOAuthClientRequest = z.input<typeof CreateOAuthClientRequest>;
