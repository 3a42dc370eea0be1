// The platform backoffice's organizations (docs/backoffice.md, "Organizations"): the specification's
// /api/backoffice/organizations routes — the list, an organization's detail, its change and soft deletion, its
// integrations (read-only) and an SMS credit grant — and the additive GET of its credits ledger. Every route needs
// a platform administrator's backoffice session (`access: 'platform-admin'`); every change is recorded in the
// backoffice audit log with the change itself.

import { Ok } from '../../../domain/backoffice.ts';
import {
  AddCreditsRequest,
  BackofficeOrganizationDetail,
  BackofficeOrganizationIdParameter,
  BackofficeOrganizationIntegrations,
  BackofficeOrganizationList,
  BackofficeOrganizationListQuery,
  BackofficeUpdateOrganizationRequest,
  CreditGrantAnswer,
  ORGANIZATION_PURGE_DAYS,
  SmsCreditLedger,
} from '../../../domain/backoffice-organizations.ts';
import {
  BackofficeCreateOrganizationAnswer,
  BackofficeCreateOrganizationRequest,
} from '../../../domain/backoffice-users.ts';
import { type AccountEmail, sendAccountEmail } from '../../../services/accounts/account-emails.ts';
import { onboardOrganization } from '../../../services/backoffice/create-organization.ts';
import { addCredits, creditLedger } from '../../../services/backoffice/credits.ts';
import {
  deleteOrganization,
  listOrganizations,
  organizationDetail,
  organizationIntegrations,
  recordOrganizationLook,
  updateOrganization,
} from '../../../services/backoffice/organizations.ts';
import { type AppContext, procedure, router, thenOk } from '../init.ts';
import { backofficeActorOf, backofficeRoute } from './backoffice-actor.ts';

const NOT_FOUND = 'No such organization';
const GONE = 'No such organization, or it is deleted';

const actorOf = backofficeActorOf;

/** The new owner's invitation, sent once the organization is committed; whether it went. */
async function sendOnboardingEmail(ctx: AppContext, email: AccountEmail): Promise<boolean> {
  const outcome = await sendAccountEmail({ em: ctx.services.em.fork(), config: ctx.services.config }, email);
  if (outcome.status === 'failed') {
    ctx.log.warn(
      { accountEmail: email.kind, error: outcome.error },
      'the new owner’s invitation could not be sent',
    );
  }
  return outcome.status === 'sent';
}

export const backofficeOrganizationsRouter = router({
  list: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/organizations', {
        summary: 'The organizations, newest first, with this month’s usage',
        description:
          '`search` matches part of the name (any case) or an exact id; `plan`, `apiEnabled` (`true`, `false`) ' +
          'and `status` (`active`, `suspended`, `deleted`) filter. Without `status`, active and suspended ' +
          'organizations are listed; deleted ones only with `status=deleted`. A page at a time: `nextCursor` ' +
          'reads the next. Usage: envelopes sent this calendar month (UTC) against the plan’s monthly document ' +
          'limit, and SMS credits (the plan’s and this month’s grants) used and remaining.',
      }),
    )
    .input(BackofficeOrganizationListQuery)
    .output(BackofficeOrganizationList)
    .query(({ ctx, input }) => listOrganizations(ctx.services, input)),

  create: procedure
    .meta(
      backofficeRoute('POST', '/api/backoffice/organizations', {
        summary: 'Create an organization and invite its first owner',
        description:
          'Onboards a customer: the organization (name, `plan`, `apiEnabled` — needs a plan with API access —, ' +
          '`defaultLanguage`, `supportedLanguages`, which must include the default) with its built-in roles, and ' +
          '`owner` invited with the owner role by email, as the administration invites (a link to ' +
          '/app/accept-invite, valid 7 days). Recorded in the backoffice audit log (`organization.created`) and ' +
          'in the organization’s security log (`user.invited`). Answers the organization as GET shows it.',
      }),
    )
    .input(BackofficeCreateOrganizationRequest)
    .output(BackofficeCreateOrganizationAnswer)
    .mutation(async ({ ctx, input }) => {
      const made = await onboardOrganization(ctx.services, actorOf(ctx), input);
      const emailed = made.email ? await sendOnboardingEmail(ctx, made.email) : false;
      return {
        organization: await organizationDetail(ctx.services, made.organizationId),
        owner: { id: made.ownerId, email: made.ownerEmail, status: 'invited' as const },
        emailed,
      };
    }),

  get: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/organizations/{id}', {
        summary: 'An organization: plan and limits, agreed rate limits, counts, billing summary and standing',
        description:
          'Deleted organizations too: when they were deleted and when their data is due for the purge ' +
          `(${ORGANIZATION_PURGE_DAYS} days later). \`billing\` is the organization’s GET /api/billing/summary.`,
        errors: { 404: NOT_FOUND },
      }),
    )
    .input(BackofficeOrganizationIdParameter)
    .output(BackofficeOrganizationDetail)
    .query(async ({ ctx, input }) => {
      const detail = await organizationDetail(ctx.services, input.id);
      await recordOrganizationLook(ctx.services, actorOf(ctx), detail.id, 'organization.viewed');
      return detail;
    }),

  update: procedure
    .meta(
      backofficeRoute('PUT', '/api/backoffice/organizations/{id}', {
        summary: 'Change an organization’s plan, status, API flag or agreed rate limits',
        description:
          'At least one field. `plan`: a plan of GET /api/plans. `status`: `suspended` (with an optional ' +
          '`suspendedReason`, an internal note) stops the organization’s sign-ins, sessions, API tokens and new ' +
          'envelopes — envelopes already sent go on; `active` reactivates it. `apiEnabled`: needs a plan with ' +
          'API access. `ratePerMinute`, `uploadRatePerMinute`: agreed per minute for an Enterprise organization ' +
          '(null: the configured default); any other plan has its own, and moving to one clears them. Answers ' +
          'the organization as GET shows it.',
        errors: { 404: GONE },
      }),
    )
    .input(BackofficeUpdateOrganizationRequest.extend(BackofficeOrganizationIdParameter.shape))
    .output(BackofficeOrganizationDetail)
    .mutation(async ({ ctx, input }) => {
      const { id, ...change } = input;
      await updateOrganization(ctx.services, actorOf(ctx), id, change);
      return organizationDetail(ctx.services, id);
    }),

  remove: procedure
    .meta(
      backofficeRoute('DELETE', '/api/backoffice/organizations/{id}', {
        summary: 'Delete an organization (softly)',
        description:
          'The organization is refused everywhere as a suspended one is (no sign-in, no session, no API token, ' +
          'no new envelope) and listed only with `status=deleted`. Its data is due for the purge ' +
          `${ORGANIZATION_PURGE_DAYS} days later.`,
        errors: { 404: GONE },
      }),
    )
    .input(BackofficeOrganizationIdParameter)
    .output(Ok)
    .mutation(thenOk(({ ctx, input }) => deleteOrganization(ctx.services, actorOf(ctx), input.id))),

  integrations: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/organizations/{id}/integrations', {
        summary: 'An organization’s API keys, webhook endpoints and their diagnostics (read-only)',
        description:
          'What the organization’s Integrations area shows: its OAuth clients (a secret’s hint, never a ' +
          'secret), its webhook endpoints (never a signing secret) with their deliveries, and the diagnostics ' +
          'of the last 24 hours and 7 days.',
        errors: { 404: NOT_FOUND },
      }),
    )
    .input(BackofficeOrganizationIdParameter)
    .output(BackofficeOrganizationIntegrations)
    .query(async ({ ctx, input }) => {
      const integrations = await organizationIntegrations(ctx.services, input.id);
      await recordOrganizationLook(ctx.services, actorOf(ctx), input.id, 'organization.integrations_viewed');
      return integrations;
    }),

  addCredits: procedure
    .meta(
      backofficeRoute('POST', '/api/backoffice/organizations/{id}/credits', {
        summary: 'Give an organization SMS credits for this month',
        description:
          'A grant counts in the calendar month (UTC) it is given, like the plan’s own credits: this month’s ' +
          'remaining SMS credits (billing summary, GET /api/v1/usage, sends and one-time codes) grow by ' +
          '`amount` at once. Answers the grant and this month’s ledger.',
        errors: { 404: GONE },
      }),
    )
    .input(AddCreditsRequest.extend(BackofficeOrganizationIdParameter.shape))
    .output(CreditGrantAnswer)
    .mutation(({ ctx, input }) => {
      const { id, ...grant } = input;
      return addCredits(ctx.services, actorOf(ctx), id, grant);
    }),

  // ---- Additive: the credits ledger ----------------------------------------------------------------------

  credits: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/organizations/{id}/credits', {
        summary: 'An organization’s SMS credits this month: allowance, grants, uses',
        description:
          'The plan’s monthly allowance, every grant of the month (amount, reason, who, when) and the SMS and ' +
          'WhatsApp messages sent: allowance + grants − uses is `balance`, and `remaining` (the balance, at ' +
          'least 0) is what the billing summary and GET /api/v1/usage show.',
        errors: { 404: NOT_FOUND },
      }),
    )
    .input(BackofficeOrganizationIdParameter)
    .output(SmsCreditLedger)
    .query(({ ctx, input }) => creditLedger(ctx.services, input.id)),
});
