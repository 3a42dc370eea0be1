// The secure-signature policy (docs/sealing.md, "Policy"): what an organization's documents are sealed with —
// the PAdES level, whether a timestamp is required, whether the audit trail is sealed too — within the bounds
// the platform's operators set for it in the backoffice. One request type serves both PUT routes; only the
// backoffice's may change the bounds. A change beyond the bounds is refused with the reason and changes
// nothing. Every answer says whether the platform can meet the policy now (shown before sending).
import { Organization } from '../../db/entities/index.ts';
import { loadSecureSignaturePolicy, type StoredPolicy, saveSecureSignaturePolicy } from '../../db/sealing.ts';
import {
  PADES_LEVELS,
  type SecureSignatureBounds,
  type SecureSignaturePolicy,
  type SecureSignatureSettings,
  UpdateBackofficeSecureSignaturePolicyConfigurationRequest,
} from '../../domain/secure-signature.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import type { SessionClock } from '../accounts/sessions.ts';
import type { Actor } from '../administration/administration.ts';
import { type BackofficeActor, recordBackofficeEvent } from '../backoffice/audit-log.ts';
import type { DataContext, ServiceConfig } from '../context.ts';
import { type ErrorDetail, InvalidRequest, NotFound } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { policyProblems, recentPlatformReadiness, sealingSettingsOf } from './readiness.ts';

type PolicyContext = DataContext & SessionClock & { config: ServiceConfig };

export async function organizationPolicy(
  ctx: PolicyContext,
  organizationId: string,
): Promise<SecureSignaturePolicy> {
  await existingOrganization(ctx, organizationId);
  return view(ctx, organizationId, await loadSecureSignaturePolicy(ctx.em, organizationId));
}

/** PUT /api/organization/secure-signature-policy: the organization's own change, within its bounds. */
export async function updateOwnPolicy(
  ctx: PolicyContext,
  actor: Actor,
  input: unknown,
): Promise<SecureSignaturePolicy> {
  const request = parseInput(UpdateBackofficeSecureSignaturePolicyConfigurationRequest, input, 'policy');
  if (request.bounds !== undefined) {
    refuseProblems([
      { field: 'bounds', message: 'the bounds are set by the platform’s operators, not by the organization' },
    ]);
  }
  const organizationId = actor.organization.id;
  const saved = await ctx.em.transactional(async (tx) => {
    const current = await loadSecureSignaturePolicy(tx, organizationId, { forUpdate: true });
    const next = merged(current, request);
    refuseProblems(problemsOf(next, request, 'organization'));
    const changed = changedFields(current, next);
    if (changed.length === 0) return current;
    const updatedAt = await saveSecureSignaturePolicy(tx, organizationId, next);
    recordActorEvent({ ...ctx, em: tx }, actor, {
      type: 'secure_signature_policy.updated',
      details: { changed, settings: next.settings },
    });
    await tx.flush();
    return { ...next, updatedAt };
  });
  return view(ctx, organizationId, saved);
}

/** PUT /api/backoffice/organizations/{id}/secure-signature-policy: the bounds and (or) the policy itself. */
export async function updatePolicyAsOperator(
  ctx: PolicyContext,
  actor: BackofficeActor,
  organizationId: string,
  input: unknown,
): Promise<SecureSignaturePolicy> {
  const request = parseInput(UpdateBackofficeSecureSignaturePolicyConfigurationRequest, input, 'policy');
  const saved = await ctx.em.transactional(async (tx) => {
    await existingOrganization({ ...ctx, em: tx }, organizationId);
    const current = await loadSecureSignaturePolicy(tx, organizationId, { forUpdate: true });
    const next = merged(current, request);
    refuseProblems(problemsOf(next, request, 'platform'));
    const changed = changedFields(current, next);
    if (changed.length === 0) return current;
    const updatedAt = await saveSecureSignaturePolicy(tx, organizationId, next);
    recordBackofficeEvent({ ...ctx, em: tx }, actor, {
      action: 'organization.secure_signature_policy.updated',
      targetId: organizationId,
      details: {
        changed,
        before: { ...current.settings, bounds: current.bounds },
        after: { ...next.settings, bounds: next.bounds },
      },
    });
    await tx.flush();
    return { ...next, updatedAt };
  });
  return view(ctx, organizationId, saved);
}

function merged(
  current: StoredPolicy,
  request: UpdateBackofficeSecureSignaturePolicyConfigurationRequest,
): StoredPolicy {
  const settings: SecureSignatureSettings = {
    level: request.level ?? current.settings.level,
    timestampRequired: request.timestampRequired ?? current.settings.timestampRequired,
    sealAuditTrail: request.sealAuditTrail ?? current.settings.sealAuditTrail,
  };
  const bounds: SecureSignatureBounds = {
    // Kept in the levels' own order, whatever order they were given in.
    allowedLevels: request.bounds?.allowedLevels
      ? PADES_LEVELS.filter((level) => request.bounds?.allowedLevels?.includes(level))
      : current.bounds.allowedLevels,
    timestampMandatory: request.bounds?.timestampMandatory ?? current.bounds.timestampMandatory,
    auditTrailSealMandatory:
      request.bounds?.auditTrailSealMandatory ?? current.bounds.auditTrailSealMandatory,
  };
  return { settings, bounds, updatedAt: current.updatedAt };
}

/** Each rule the merged policy breaks, on the field the request should change. */
function problemsOf(
  next: StoredPolicy,
  request: UpdateBackofficeSecureSignaturePolicyConfigurationRequest,
  who: 'organization' | 'platform',
): ErrorDetail[] {
  const { settings, bounds } = next;
  const problems: ErrorDetail[] = [];
  // The field to blame: what the request changed (a bound the operator just tightened, or the setting).
  const blame = (setting: string, bound: string, boundGiven: boolean) =>
    who === 'platform' && boundGiven ? bound : setting;
  if (!bounds.allowedLevels.includes(settings.level)) {
    problems.push({
      field: blame('level', 'bounds.allowedLevels', request.bounds?.allowedLevels !== undefined),
      message:
        who === 'organization'
          ? `${settings.level} is not allowed for this organization (allowed: ${bounds.allowedLevels.join(', ')})`
          : `the level ${settings.level} is outside bounds.allowedLevels (${bounds.allowedLevels.join(', ')}): set level to one of them in the same request`,
    });
  }
  if (settings.timestampRequired && settings.level === 'B-B') {
    problems.push({
      field: request.timestampRequired !== undefined ? 'timestampRequired' : 'level',
      message: 'a timestamp can be required only with B-T, B-LT or B-LTA (B-B has no timestamp)',
    });
  }
  if (bounds.timestampMandatory && !settings.timestampRequired) {
    problems.push({
      field: blame(
        'timestampRequired',
        'bounds.timestampMandatory',
        request.bounds?.timestampMandatory !== undefined,
      ),
      message:
        who === 'organization'
          ? 'the platform requires a timestamp for this organization: timestampRequired stays true'
          : 'bounds.timestampMandatory needs the policy to require a timestamp: set timestampRequired to true (and a level from B-T up) in the same request',
    });
  }
  if (bounds.auditTrailSealMandatory && !settings.sealAuditTrail) {
    problems.push({
      field: blame(
        'sealAuditTrail',
        'bounds.auditTrailSealMandatory',
        request.bounds?.auditTrailSealMandatory !== undefined,
      ),
      message:
        who === 'organization'
          ? 'the platform requires the audit trail to be sealed for this organization: sealAuditTrail stays true'
          : 'bounds.auditTrailSealMandatory needs sealAuditTrail to be true: set it in the same request',
    });
  }
  return problems;
}

function refuseProblems(found: ErrorDetail[]): void {
  // Named as the request's other refusals name a body field.
  const problems = found.map((problem) => ({ ...problem, field: `body.${problem.field}` }));
  const [first] = problems;
  if (first) throw new InvalidRequest(`Invalid policy: ${first.field}: ${first.message}`, problems);
}

function changedFields(before: StoredPolicy, after: StoredPolicy): string[] {
  const changed: string[] = [];
  for (const key of ['level', 'timestampRequired', 'sealAuditTrail'] as const) {
    if (before.settings[key] !== after.settings[key]) changed.push(key);
  }
  if (before.bounds.allowedLevels.join() !== after.bounds.allowedLevels.join())
    changed.push('bounds.allowedLevels');
  for (const key of ['timestampMandatory', 'auditTrailSealMandatory'] as const) {
    if (before.bounds[key] !== after.bounds[key]) changed.push(`bounds.${key}`);
  }
  if (before.updatedAt === null && changed.length === 0) return [];
  return changed;
}

async function view(
  ctx: PolicyContext,
  organizationId: string,
  policy: StoredPolicy,
): Promise<SecureSignaturePolicy> {
  const readiness = await recentPlatformReadiness(sealingSettingsOf(ctx.config));
  const problems = policyProblems(readiness, policy.settings);
  return {
    organizationId,
    ...policy.settings,
    bounds: policy.bounds,
    satisfiable: problems.length === 0,
    problems,
    updatedAt: policy.updatedAt?.toISOString() ?? null,
  };
}

async function existingOrganization(ctx: DataContext, organizationId: string): Promise<void> {
  const organization = await ctx.em.findOne(Organization, { id: organizationId });
  if (!organization || organization.deletedAt)
    throw new NotFound(`Organization ${organizationId} was not found.`);
}
