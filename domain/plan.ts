// A plan's shape, once: what it includes and how far its limits go, as the application routes show it
// (GET /api/plans) and the web app's plans page reads it (through the router's types). Plans are reference
// data shipped with the schema (db/migrations/0001-initial.ts).
//
// No `.meta({ id })` here, unlike the public API's resources: every id in zod's global registry becomes a
// component of /api/v1's OpenAPI document, which must list only its own. The application routes' document
// names the schema `Plan` itself (api/trpc/openapi.ts).
import { z } from 'zod';

/** A count the plan allows; null: unlimited. */
const limit = (description: string) =>
  z
    .number()
    .int()
    .min(0)
    .nullable()
    .meta({ description: `${description}; null: unlimited.` });

/** A public-API rate the plan allows per OAuth client; null: agreed per organization, or no API access. */
const rate = (description: string) =>
  z
    .number()
    .int()
    .min(1)
    .nullable()
    .meta({
      description: `${description}; null: agreed per organization (Enterprise), or no API access (apiAccess false).`,
    });

export const PlanView = z
  .object({
    name: z.string().meta({
      description: 'Starter, Professional, Business, Premium, Enterprise, or a plan an operator added.',
    }),
    apiAccess: z.boolean().meta({ description: 'Whether the plan includes the public API (/api/v1).' }),
    webhookAccess: z.boolean().meta({ description: 'Whether the plan includes webhooks.' }),
    monthlyDocumentLimit: limit('Envelopes sent per calendar month'),
    userLimit: limit('Users of the organization'),
    teamLimit: limit('Teams of the organization'),
    smsCreditsIncluded: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'SMS and WhatsApp messages included per month.' }),
    apiRequestsPerMinute: rate('Public API requests per minute'),
    apiUploadsPerMinute: rate(
      'Public API uploads and other heavy requests per minute (a separate, lower limit)',
    ),
    supportLevel: z.string().meta({ description: 'Community, Standard, Priority, Premium or Dedicated.' }),
  })
  .meta({ description: 'A plan and its limits.' });
export type PlanView = z.output<typeof PlanView>;

export const PlanList = z
  .array(PlanView)
  .meta({ description: 'Every plan in its order: Starter to Enterprise, then any plan an operator added.' });
export type PlanList = z.output<typeof PlanList>;
