// The secure-signature policy and sealing readiness (docs/sealing.md): the organization's own policy
// (`settings:read`, `settings:manage`), and in the backoffice the platform's readiness and each organization's
// policy with the bounds the platform sets for it (`platform-admin`; changes in the backoffice audit log).

import { Organization } from '../../../db/entities/index.ts';
import { loadSecureSignaturePolicy } from '../../../db/sealing.ts';
import { BackofficeOrganizationIdParameter } from '../../../domain/backoffice-organizations.ts';
import {
  ReadinessQuery,
  SecureSignaturePolicy,
  SecureSignatureReadiness,
  UpdateBackofficeSecureSignaturePolicyConfigurationRequest,
} from '../../../domain/secure-signature.ts';
import { NotFound } from '../../../services/errors.ts';
import {
  organizationPolicy,
  updateOwnPolicy,
  updatePolicyAsOperator,
} from '../../../services/sealing/policy.ts';
import {
  checkOrganizationReadiness,
  checkPlatformReadiness,
  sealingSettingsOf,
} from '../../../services/sealing/readiness.ts';
import { procedure, route, router } from '../init.ts';
import { actorOf } from './administration-actor.ts';
import { backofficeActorOf } from './backoffice-actor.ts';

const POLICY_RULES =
  'Partial: an absent field stays as it is. `level`: B-B, B-T, B-LT or B-LTA, one of the bounds’ ' +
  '`allowedLevels`. `timestampRequired`: only from B-T up; with it, finalization waits for a timestamp authority ' +
  '(then FinalPdfFailed) instead of sealing at B-B. `sealAuditTrail`: the audit-trail PDF is sealed too. A ' +
  'request beyond the bounds is refused (400) naming the field and the reason, and changes nothing.';

export const secureSignaturesRouter = router({
  policy: procedure
    .meta(
      route('GET', '/api/organization/secure-signature-policy', {
        summary: "The organization's secure-signature policy",
        description:
          'The level, timestamp and audit-trail settings, the bounds the platform set, and whether the platform ' +
          'can meet the policy now (`satisfiable`, with `problems` when not). Every signed-in user of the ' +
          'organization may read it: the send page warns a sender whose documents cannot be sealed as the policy asks.',
        tags: ['organization'],
        access: 'signed-in',
      }),
    )
    .output(SecureSignaturePolicy)
    .query(({ ctx }) => organizationPolicy(ctx.services, actorOf(ctx).organization.id)),

  updatePolicy: procedure
    .meta(
      route('PUT', '/api/organization/secure-signature-policy', {
        summary: "Change the organization's secure-signature policy",
        description: `${POLICY_RULES} \`bounds\` is refused here: the platform's operators set it.`,
        tags: ['organization'],
        access: 'settings:manage',
      }),
    )
    .input(UpdateBackofficeSecureSignaturePolicyConfigurationRequest)
    .output(SecureSignaturePolicy)
    .mutation(({ ctx, input }) => updateOwnPolicy(ctx.services, actorOf(ctx), input)),

  readiness: procedure
    .meta(
      route('GET', '/api/backoffice/secure-signatures/readiness', {
        summary: 'Whether the platform (or one organization) can seal documents now',
        description:
          'Checked afresh: the seal certificate (validity and chain), its private key (a probe signature), a ' +
          'timestamp request to each configured authority, revocation data for B-LT and B-LTA, and with ' +
          '`organizationId` whether that organization’s policy can be met.',
        tags: ['backoffice'],
        access: 'platform-admin',
        errors: { 404: 'No such organization' },
      }),
    )
    .input(ReadinessQuery)
    .output(SecureSignatureReadiness)
    .query(async ({ ctx, input }) => {
      const settings = sealingSettingsOf(ctx.services.config);
      if (!input.organizationId) return { ...(await checkPlatformReadiness(settings)), organizationId: null };
      const organization = await ctx.services.em.findOne(Organization, { id: input.organizationId });
      if (!organization || organization.deletedAt) {
        throw new NotFound(`Organization ${input.organizationId} was not found.`);
      }
      const policy = await loadSecureSignaturePolicy(ctx.services.em, organization.id);
      return checkOrganizationReadiness(settings, organization.id, policy.settings);
    }),

  organizationPolicy: procedure
    .meta(
      route('GET', '/api/backoffice/organizations/{id}/secure-signature-policy', {
        summary: "An organization's secure-signature policy and its bounds",
        tags: ['backoffice'],
        access: 'platform-admin',
        errors: { 404: 'No such organization' },
      }),
    )
    .input(BackofficeOrganizationIdParameter)
    .output(SecureSignaturePolicy)
    .query(({ ctx, input }) => organizationPolicy(ctx.services, input.id)),

  updateOrganizationPolicy: procedure
    .meta(
      route('PUT', '/api/backoffice/organizations/{id}/secure-signature-policy', {
        summary: "Set an organization's secure-signature bounds and policy",
        description:
          `${POLICY_RULES} \`bounds\` (platform operators only): \`allowedLevels\` the organization may ` +
          'choose from, `timestampMandatory` (it cannot turn `timestampRequired` off), ' +
          '`auditTrailSealMandatory` (it cannot turn `sealAuditTrail` off). Tightening a bound that the ' +
          'current policy breaks needs the policy changed in the same request.',
        tags: ['backoffice'],
        access: 'platform-admin',
        errors: { 404: 'No such organization' },
      }),
    )
    .input(
      UpdateBackofficeSecureSignaturePolicyConfigurationRequest.extend(
        BackofficeOrganizationIdParameter.shape,
      ),
    )
    .output(SecureSignaturePolicy)
    .mutation(({ ctx, input }) => {
      const { id, ...change } = input;
      return updatePolicyAsOperator(ctx.services, backofficeActorOf(ctx), id, change);
    }),
});
