// The secure-signature policy and sealing readiness (docs/sealing.md, "Policy" and "Readiness") over HTTP:
// an organization's defaults; its owner's changes within the bounds, each refusal naming the field with the
// reason and changing nothing; the bounds set only by platform administrators, a tightened bound refused while
// the policy breaks it; every signed-in user reads the policy with whether the platform can meet it, a sender
// cannot change it; the readiness of the platform (the development CA's certificate, its private key, no
// timestamp authority configured) and of one organization; the security log and the backoffice audit log; and
// another organization's policy stays out of reach.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackofficeAuditEvent, SecurityEvent } from '../../db/entities/index.ts';
import type { SecureSignaturePolicy, SecureSignatureReadiness } from '../../domain/secure-signature.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser } from '../support/app-requests.ts';
import { type SignedInAdmin, signedInAdmin } from '../support/backoffice.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

const OWN = '/api/organization/secure-signature-policy';
const backoffice = (id: string) => `/api/backoffice/organizations/${id}/secure-signature-policy`;

let harness: ApiHarness;
let owner: SignedInUser;
let sender: SignedInUser;
let admin: SignedInAdmin;

beforeAll(async () => {
  harness = await openApiHarness();
  owner = await signedInUser(harness, { role: 'owner' });
  sender = await signedInUser(harness, { role: 'sender', organizationId: owner.organization.id });
  admin = await signedInAdmin(harness, 'sealing');
});
afterAll(() => harness?.close());

function refusal(response: LightMyRequestResponse) {
  expect(response.statusCode, response.body).toBe(400);
  return response.json().error as { message: string; details: { field: string; message: string }[] };
}

describe('the secure-signature policy', () => {
  it('starts at B-B with the audit trail sealed and every level allowed; the platform can meet it', async () => {
    const response = await asUser(harness.app, owner, 'GET', OWN);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      organizationId: owner.organization.id,
      level: 'B-B',
      timestampRequired: false,
      sealAuditTrail: true,
      bounds: {
        allowedLevels: ['B-B', 'B-T', 'B-LT', 'B-LTA'],
        timestampMandatory: false,
        auditTrailSealMandatory: false,
      },
      satisfiable: true,
      problems: [],
      updatedAt: null,
    });
  });

  it('takes the owner’s change, warns that no timestamp authority answers, and logs it', async () => {
    const response = await asUser(harness.app, owner, 'PUT', OWN, { level: 'B-T', timestampRequired: true });
    expect(response.statusCode, response.body).toBe(200);
    const policy = response.json() as SecureSignaturePolicy;
    expect(policy).toMatchObject({
      level: 'B-T',
      timestampRequired: true,
      sealAuditTrail: true,
      satisfiable: false,
    });
    expect(policy.problems.join(' ')).toContain('No timestamp authority answers');
    expect(policy.updatedAt).not.toBeNull();
    // Every signed-in user reads it (the send page warns senders); only settings:manage changes it.
    const read = await asUser(harness.app, sender, 'GET', OWN);
    expect(read.json()).toMatchObject({ level: 'B-T', satisfiable: false });
    const denied = await asUser(harness.app, sender, 'PUT', OWN, { level: 'B-B', timestampRequired: false });
    expect(denied.statusCode).toBe(403);
    const events = await harness.ctx.orm.em.fork().find(SecurityEvent, {
      organizationId: owner.organization.id,
      type: 'secure_signature_policy.updated',
    });
    expect(events.map((e) => e.details.changed)).toEqual([['level', 'timestampRequired']]);
  });

  it('refuses, naming the field and changing nothing: bounds from the organization, a timestamp without one', async () => {
    const bounds = refusal(
      await asUser(harness.app, owner, 'PUT', OWN, { bounds: { allowedLevels: ['B-B'] } }),
    );
    expect(bounds.details[0]?.field).toBe('body.bounds');
    const b = refusal(await asUser(harness.app, owner, 'PUT', OWN, { level: 'B-B' }));
    expect(b.details[0]).toMatchObject({ field: 'body.level' });
    expect(b.details[0]?.message).toContain('only with B-T, B-LT or B-LTA');
    const unknown = refusal(await asUser(harness.app, owner, 'PUT', OWN, { level: 'B-X' }));
    expect(unknown.details[0]?.field).toBe('body.level');
    const extra = refusal(await asUser(harness.app, owner, 'PUT', OWN, { lvl: 'B-B' }));
    expect(extra.message).toContain('lvl');
    expect((await asUser(harness.app, owner, 'GET', OWN)).json()).toMatchObject({
      level: 'B-T',
      timestampRequired: true,
    });
  });

  it('lets platform administrators set the bounds; a bound the policy breaks needs the policy changed too', async () => {
    const id = owner.organization.id;
    const tightened = refusal(
      await asUser(harness.app, admin, 'PUT', backoffice(id), { bounds: { allowedLevels: ['B-B'] } }),
    );
    expect(tightened.details.map((d) => d.field)).toContain('body.bounds.allowedLevels');
    expect(tightened.details[0]?.message).toContain('set level to one of them in the same request');
    const both = await asUser(harness.app, admin, 'PUT', backoffice(id), {
      level: 'B-B',
      timestampRequired: false,
      bounds: { allowedLevels: ['B-B', 'B-LT'], auditTrailSealMandatory: true },
    });
    expect(both.statusCode, both.body).toBe(200);
    expect(both.json()).toMatchObject({
      level: 'B-B',
      bounds: { allowedLevels: ['B-B', 'B-LT'], timestampMandatory: false, auditTrailSealMandatory: true },
      satisfiable: true,
    });
    // The organization now chooses within them.
    const outside = refusal(
      await asUser(harness.app, owner, 'PUT', OWN, { level: 'B-T', timestampRequired: true }),
    );
    expect(outside.details[0]).toMatchObject({ field: 'body.level' });
    expect(outside.details[0]?.message).toContain('allowed: B-B, B-LT');
    const unsealed = refusal(await asUser(harness.app, owner, 'PUT', OWN, { sealAuditTrail: false }));
    expect(unsealed.details[0]?.field).toBe('body.sealAuditTrail');
    const inside = await asUser(harness.app, owner, 'PUT', OWN, { level: 'B-LT' });
    expect(inside.statusCode, inside.body).toBe(200);
    const audit = await harness.ctx.orm.em
      .fork()
      .find(BackofficeAuditEvent, { action: 'organization.secure_signature_policy.updated', targetId: id });
    expect(audit).toHaveLength(1);
    expect(audit[0]?.details).toMatchObject({
      changed: ['level', 'timestampRequired', 'bounds.allowedLevels', 'bounds.auditTrailSealMandatory'],
    });
    // The backoffice's view is the same policy.
    expect((await asUser(harness.app, admin, 'GET', backoffice(id))).json()).toMatchObject({ level: 'B-LT' });
  });

  it('keeps the backoffice routes for platform administrators and other organizations out of reach', async () => {
    expect((await asUser(harness.app, owner, 'GET', backoffice(owner.organization.id))).statusCode).toBe(401);
    const other = await signedInUser(harness, { role: 'owner' });
    const theirs = await asUser(harness.app, other, 'GET', OWN);
    expect(theirs.json()).toMatchObject({ organizationId: other.organization.id, level: 'B-B' });
    const missing = await asUser(
      harness.app,
      admin,
      'GET',
      backoffice('00000000-0000-4000-8000-000000000000'),
    );
    expect(missing.statusCode).toBe(404);
  });
});

describe('sealing readiness', () => {
  it('checks the platform for real: certificate, private key, revocation; no timestamp authority is configured', async () => {
    const response = await asUser(harness.app, admin, 'GET', '/api/backoffice/secure-signatures/readiness');
    expect(response.statusCode, response.body).toBe(200);
    const readiness = response.json() as SecureSignatureReadiness;
    expect(readiness).toMatchObject({ ready: false, organizationId: null, highestReadyLevel: 'B-B' });
    expect(readiness.certificate).toMatchObject({ source: 'development' });
    expect(readiness.certificate?.subject).toContain('Sigil Document Seal');
    expect(readiness.certificate?.chain).toHaveLength(2);
    const byCheck = Object.fromEntries(readiness.checks.map((c) => [c.check, c]));
    expect(byCheck.certificate).toMatchObject({ ok: true });
    expect(byCheck.private_key).toMatchObject({ ok: true });
    expect(byCheck.revocation).toMatchObject({ ok: true });
    expect(byCheck.timestamp_authority).toMatchObject({ ok: false });
    expect(byCheck.timestamp_authority?.detail).toContain('TIMESTAMP_AUTHORITY_URLS');
  });

  it('answers for one organization whether its policy can be met', async () => {
    const fresh = await signedInUser(harness, { role: 'owner' });
    const url = `/api/backoffice/secure-signatures/readiness?organizationId=${fresh.organization.id}`;
    const ready = (await asUser(harness.app, admin, 'GET', url)).json() as SecureSignatureReadiness;
    expect(ready).toMatchObject({ ready: true, organizationId: fresh.organization.id });
    expect(ready.checks.map((c) => c.check)).toEqual(['certificate', 'private_key', 'policy']);
    await asUser(harness.app, fresh, 'PUT', OWN, { level: 'B-LTA', timestampRequired: true });
    const unmet = (await asUser(harness.app, admin, 'GET', url)).json() as SecureSignatureReadiness;
    const policy = unmet.checks.find((c) => c.check === 'policy');
    expect(unmet.ready).toBe(false);
    expect(policy?.ok).toBe(false);
    expect(policy?.detail).toContain('No timestamp authority answers');
    const bad = await asUser(
      harness.app,
      admin,
      'GET',
      '/api/backoffice/secure-signatures/readiness?organizationId=x',
    );
    expect(refusalField(bad)).toBe('querystring.organizationId');
    const unknown = await asUser(
      harness.app,
      admin,
      'GET',
      '/api/backoffice/secure-signatures/readiness?organizationId=00000000-0000-4000-8000-000000000000',
    );
    expect(unknown.statusCode).toBe(404);
  });
});

function refusalField(response: LightMyRequestResponse): string | undefined {
  return refusal(response).details[0]?.field;
}
