// An organization's users as the backoffice sees them (docs/backoffice.md, "Users of an organization"): the list
// (search, status filter, pages) and the actions support and administrators take on a user, each with a reason
// recorded in the backoffice audit log and the organization's security log.
import { z } from 'zod';
import { EmailAddress, FullName, USER_STATUSES, UserView } from './account.ts';
import { BACKOFFICE_PAGING } from './backoffice.ts';
import { BackofficeOrganizationDetail } from './backoffice-organizations.ts';
import { APPLICATION_DOCUMENT_ONLY, IsoDateTime, safeText, uuidOf } from './common.ts';
import { CreateOrganizationRequest } from './organization.ts';
import { UpdateOrganizationLanguages } from './organization-languages.ts';

/** The actions on a user, each one route: POST /api/backoffice/organizations/{id}/users/{userId}/<action>. */
export const BACKOFFICE_USER_ACTIONS = [
  'reset-mfa',
  'unlock',
  'resend-verification',
  'resend-invitation',
  'deactivate',
] as const;
export type BackofficeUserAction = (typeof BACKOFFICE_USER_ACTIONS)[number];

export const BackofficeOrganizationUserParameters = z.strictObject({
  id: uuidOf('id'),
  userId: uuidOf('userId'),
});

export const BackofficeUserListQuery = z.strictObject({
  search: safeText()
    .trim()
    .max(200, 'search must be at most 200 characters')
    .optional()
    .describe('Part of the name or email (any case)'),
  status: z.enum(USER_STATUSES, { message: `status must be one of ${USER_STATUSES.join(', ')}` }).optional(),
  ...BACKOFFICE_PAGING,
});

export const BackofficeOrganizationUser = UserView.extend({
  emailVerified: z.boolean(),
  /** Until when sign-in is locked after too many failed attempts; null: not locked. */
  lockedUntil: IsoDateTime.nullable(),
});
export type BackofficeOrganizationUser = z.output<typeof BackofficeOrganizationUser>;

export const BackofficeOrganizationUserList = z.object({
  users: z.array(BackofficeOrganizationUser),
  nextCursor: z.string().nullable(),
});

/** Why: required for every action, kept in both logs. */
export const BackofficeReason = z
  .strictObject({
    reason: safeText('multiline')
      .trim()
      .min(1, 'reason is required')
      .max(500, 'reason must be at most 500 characters')
      .describe('Why (the customer’s request, a ticket number); recorded in both logs'),
  })
  .meta({ id: 'BackofficeUserActionRequest', ...APPLICATION_DOCUMENT_ONLY });

export const BackofficeUserActionAnswer = z.object({
  user: BackofficeOrganizationUser,
  /** Whether an email went to the user (the verification or invitation link, the notice). */
  emailed: z.boolean(),
});

/**
 * A new organization made from the backoffice (an Enterprise customer's onboarding): the sign-up's organization
 * (name, plan, API access, languages) and its first owner, invited by email as the administration invites.
 */
export const BackofficeCreateOrganizationRequest = CreateOrganizationRequest.extend({
  supportedLanguages: UpdateOrganizationLanguages.shape.supportedLanguages,
  owner: z.strictObject({ email: EmailAddress, fullName: FullName }),
})
  .strict()
  .superRefine((value, context) => {
    if (value.supportedLanguages && !value.supportedLanguages.includes(value.defaultLanguage)) {
      context.addIssue({
        code: 'custom',
        path: ['defaultLanguage'],
        message: 'defaultLanguage must be one of supportedLanguages',
      });
    }
  })
  .meta({ id: 'BackofficeCreateOrganizationRequest', ...APPLICATION_DOCUMENT_ONLY });
export type BackofficeCreateOrganizationRequest = z.input<typeof BackofficeCreateOrganizationRequest>;

export const BackofficeCreateOrganizationAnswer = z.object({
  organization: BackofficeOrganizationDetail,
  owner: z.object({ id: z.uuid(), email: z.string(), status: z.literal('invited') }),
  /** Whether the invitation (or the notice to the address's holder in another organization) went out. */
  emailed: z.boolean(),
});
