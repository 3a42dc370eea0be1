// Reminder and deadline settings through HTTP (docs/envelope-lifecycle.md, "Reminders and deadline warnings";
// docs/administration.md): the organization's defaults in its settings, a new envelope's own copy from
// /api/v1's create (defaults, overrides, bad values), and a change from the envelope's page — a Draft's in place,
// an open envelope's by its workflow's Update — refused with 400 naming the field, 404 for another
// organization, 403 without documents:manage and 409 once the envelope is final, each changing nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Envelope } from '../../db/entities/index.ts';
import type { DocumentDetail } from '../../domain/document.ts';
import {
  type ApiHarness,
  type Integrator,
  newIntegrator,
  openApiHarness,
  sentEnvelope,
} from '../support/api.ts';
import { asUser, callAs, expectError } from '../support/app-requests.ts';
import { TWO_SIGNERS } from '../support/context.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let integrator: Integrator;
let bearer: { organizationId: string; headers: Record<string, string> };
let owner: SignedInUser;
let member: SignedInUser;
let stranger: SignedInUser;

const DAY_MS = 86_400_000;

beforeAll(async () => {
  harness = await openApiHarness();
  integrator = await newIntegrator(harness);
  bearer = { organizationId: integrator.organizationId, headers: await integrator.auth() };
  const organizationId = integrator.organizationId;
  owner = await signedInUser(harness, { role: 'owner', organizationId, fullName: 'Olivia Owner' });
  member = await signedInUser(harness, { role: 'member', organizationId, fullName: 'Mor Member' });
  stranger = await signedInUser(harness, { role: 'owner', fullName: 'Someone Else' });
});
afterAll(async () => {
  await harness?.close();
});

const createBody = (extra: Record<string, unknown> = {}) => ({
  title: 'Services agreement',
  templateId: integrator.templateId,
  expiresAt: new Date(Date.now() + 20 * DAY_MS).toISOString(),
  recipients: TWO_SIGNERS,
  ...extra,
});

async function rowSettings(id: string) {
  return (await harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id })).deadlineSettings;
}

describe('the organization defaults', () => {
  it('are organization settings: shown, changed, refused out of bounds naming the field, reset by null', async () => {
    const before = await callAs(harness.app, owner, 'GET', '/api/organization/settings');
    expect(before).toMatchObject({
      reminderIntervalDays: null,
      maxAutomaticReminders: 3,
      expiringSoonDays: 0,
      expiredExtensionGraceDays: 30,
    });
    const bad = await asUser(harness.app, owner, 'PUT', '/api/organization/settings', {
      reminderIntervalDays: 2,
      expiringSoonDays: 400,
    });
    expectError(bad, 400, 'invalid_request');
    expect(bad.json().error.details).toEqual([
      expect.objectContaining({
        field: 'body.expiringSoonDays',
        message: 'expiringSoonDays must be at most 365',
      }),
    ]);
    // Nothing changed, not even the valid field of the refused request.
    expect(await callAs(harness.app, owner, 'GET', '/api/organization/settings')).toMatchObject({
      reminderIntervalDays: null,
    });
    const changed = await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      reminderIntervalDays: 2,
      maxAutomaticReminders: 4,
      expiringSoonDays: 3,
      expiredExtensionGraceDays: 7,
    });
    expect(changed).toMatchObject({
      reminderIntervalDays: 2,
      maxAutomaticReminders: 4,
      expiringSoonDays: 3,
      expiredExtensionGraceDays: 7,
    });
    const member403 = await asUser(harness.app, member, 'PUT', '/api/organization/settings', {
      expiringSoonDays: 1,
    });
    expect(member403.statusCode).toBe(403);
  });

  it("become a new envelope's own settings unless the create gives its own; bad values are 400 naming the field", async () => {
    await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      reminderIntervalDays: 2,
      maxAutomaticReminders: 4,
      expiringSoonDays: 3,
      expiredExtensionGraceDays: 7,
    });
    const defaults = await sentEnvelope(harness, bearer, createBody(), { send: false });
    expect(defaults.created.deadlineSettings).toEqual({
      reminderIntervalDays: 2,
      maxAutomaticReminders: 4,
      expiringSoonDays: 3,
      expiredExtensionGraceDays: 7,
    });
    const own = await sentEnvelope(
      harness,
      bearer,
      createBody({ reminderIntervalDays: null, expiringSoonDays: 5 }),
      { send: false },
    );
    expect(own.created.deadlineSettings).toEqual({
      reminderIntervalDays: null,
      maxAutomaticReminders: 4,
      expiringSoonDays: 5,
      expiredExtensionGraceDays: 7,
    });
    expect(await rowSettings(own.id)).toEqual(own.created.deadlineSettings);
    const bad = await asUser(harness.app, bearer, 'POST', '/api/v1/envelopes/from-template', {
      ...createBody(),
      maxAutomaticReminders: 2.5,
    });
    expectError(bad, 400, 'invalid_request');
    expect(bad.json().error.details[0].field).toBe('body.maxAutomaticReminders');
    // Back to the defaults for the other tests.
    await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      reminderIntervalDays: null,
      maxAutomaticReminders: null,
      expiringSoonDays: null,
      expiredExtensionGraceDays: null,
    });
    expect(await callAs(harness.app, owner, 'GET', '/api/organization/settings')).toMatchObject({
      reminderIntervalDays: null,
      maxAutomaticReminders: 3,
      expiringSoonDays: 0,
      expiredExtensionGraceDays: 30,
    });
  });
});

describe("changing an envelope's settings from its page", () => {
  it("a Draft's change in place; an open envelope's through its workflow, shown on the page and in the timeline", async () => {
    const draft = await sentEnvelope(harness, bearer, createBody(), { send: false });
    const changedDraft = await callAs<DocumentDetail>(
      harness.app,
      owner,
      'POST',
      `/api/documents/${draft.id}/settings`,
      { expiringSoonDays: 2 },
    );
    expect(changedDraft.deadlineSettings).toMatchObject({ expiringSoonDays: 2 });
    expect(changedDraft.actions.changeSettings).toBe(true);

    const open = await sentEnvelope(harness, bearer, createBody());
    const detail = await callAs<DocumentDetail>(
      harness.app,
      owner,
      'POST',
      `/api/documents/${open.id}/settings`,
      { reminderIntervalDays: 5, maxAutomaticReminders: 2, expiringSoonDays: 4 },
    );
    expect(detail.deadlineSettings).toEqual({
      reminderIntervalDays: 5,
      maxAutomaticReminders: 2,
      expiringSoonDays: 4,
      expiredExtensionGraceDays: 30,
    });
    expect(detail.timeline.at(-1)).toMatchObject({
      type: 'envelope.settings_updated',
      data: {
        changed: ['reminderIntervalDays', 'maxAutomaticReminders', 'expiringSoonDays'],
        reminder_interval_days: 5,
        expiring_soon_days: 4,
      },
    });
    // The workflow plans from the change: the next reminder five days away, the warning four days before the deadline.
    const live = await callAs<{ live: { nextReminderAt: string; expiryWarningAt?: string } }>(
      harness.app,
      owner,
      'GET',
      `/api/documents/${open.id}/live`,
    );
    expect(Math.round((Date.parse(live.live.nextReminderAt) - Date.now()) / DAY_MS)).toBe(5);
    expect(live.live.expiryWarningAt).toBe(
      new Date(Date.parse(open.created.expiresAt as string) - 4 * DAY_MS).toISOString(),
    );
  });

  it('refuses bad values (400 naming the field), other organizations (404), readers (403) and final envelopes (409), changing nothing', async () => {
    const open = await sentEnvelope(harness, bearer, createBody());
    const before = await rowSettings(open.id);
    const bad = await asUser(harness.app, owner, 'POST', `/api/documents/${open.id}/settings`, {
      maxAutomaticReminders: 51,
    });
    expectError(bad, 400, 'invalid_request');
    expect(bad.json().error.details[0].field).toBe('body.maxAutomaticReminders');
    const empty = await asUser(harness.app, owner, 'POST', `/api/documents/${open.id}/settings`, {});
    expectError(empty, 400, 'invalid_request');
    const unknown = await asUser(harness.app, owner, 'POST', `/api/documents/${open.id}/settings`, {
      reminderEveryDays: 2,
    });
    expectError(unknown, 400, 'invalid_request');
    const foreign = await asUser(harness.app, stranger, 'POST', `/api/documents/${open.id}/settings`, {
      expiringSoonDays: 1,
    });
    expectError(foreign, 404, 'not_found');
    const reader = await asUser(harness.app, member, 'POST', `/api/documents/${open.id}/settings`, {
      expiringSoonDays: 1,
    });
    expect(reader.statusCode).toBe(403);
    expect(await rowSettings(open.id)).toEqual(before);

    await callAs(harness.app, bearer, 'POST', `/api/v1/envelopes/${open.id}/cancel`, {});
    const final = await asUser(harness.app, owner, 'POST', `/api/documents/${open.id}/settings`, {
      expiringSoonDays: 1,
    });
    expectError(final, 409, 'conflict');
    expect(final.json().error.message).toMatch(/Cancelled/);
    expect(await rowSettings(open.id)).toEqual(before);
    const page = await callAs<DocumentDetail>(harness.app, owner, 'GET', `/api/documents/${open.id}`);
    expect(page.actions.changeSettings).toBe(false);
    expect(page.timeline.some((event) => event.type === 'envelope.settings_updated')).toBe(false);
  });
});

describe('changing the settings through /api/v1', () => {
  it('PUT /api/v1/envelopes/{id}/settings: changed by the workflow, 400 naming the field, 404 elsewhere, 409 once final; sandbox too', async () => {
    const open = await sentEnvelope(harness, bearer, createBody());
    const changed = await callAs<{ deadlineSettings: Record<string, unknown> }>(
      harness.app,
      bearer,
      'PUT',
      `/api/v1/envelopes/${open.id}/settings`,
      { expiredExtensionGraceDays: 0, reminderIntervalDays: 3 },
    );
    expect(changed.deadlineSettings).toEqual({
      reminderIntervalDays: 3,
      maxAutomaticReminders: 3,
      expiringSoonDays: 0,
      expiredExtensionGraceDays: 0,
    });
    const bad = await asUser(harness.app, bearer, 'PUT', `/api/v1/envelopes/${open.id}/settings`, {
      reminderIntervalDays: 0,
    });
    expectError(bad, 400, 'invalid_request');
    expect(bad.json().error.details[0].field).toBe('body.reminderIntervalDays');
    const other = await newIntegrator(harness);
    const foreign = await asUser(
      harness.app,
      { headers: await other.auth() },
      'PUT',
      `/api/v1/envelopes/${open.id}/settings`,
      { expiringSoonDays: 1 },
    );
    expectError(foreign, 404, 'not_found');
    await callAs(harness.app, bearer, 'POST', `/api/v1/envelopes/${open.id}/cancel`, {});
    const final = await asUser(harness.app, bearer, 'PUT', `/api/v1/envelopes/${open.id}/settings`, {
      expiringSoonDays: 1,
    });
    expectError(final, 409, 'conflict');
    expect(await rowSettings(open.id)).toEqual(changed.deadlineSettings);

    const sandbox = { ...bearer, headers: { ...bearer.headers, 'x-service-sandbox': 'true' } };
    const synthetic = await callAs<{ id: string }>(
      harness.app,
      sandbox,
      'POST',
      '/api/v1/envelopes/from-template',
      createBody({ expiringSoonDays: 2 }),
      { status: 201 },
    );
    const sandboxChanged = await callAs<{ deadlineSettings: Record<string, unknown> }>(
      harness.app,
      sandbox,
      'PUT',
      `/api/v1/envelopes/${synthetic.id}/settings`,
      { maxAutomaticReminders: 1 },
    );
    expect(sandboxChanged.deadlineSettings).toMatchObject({ expiringSoonDays: 2, maxAutomaticReminders: 1 });
  });
});
