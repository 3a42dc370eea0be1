// Retention (docs/envelope-lifecycle.md, "Retention"): the daily Temporal Schedule, and the run it starts, under
// the Java time-skipping test server so days pass in seconds. A deleted envelope's files — its uploaded source,
// final PDF, audit trail and the signers' signature images — are purged once the organization's
// retention.deletedDays have passed and not before, exactly once (the run is repeated), with one
// `envelope.files_purged` event naming each file; an upload another envelope still uses stays, and so does
// everything of envelopes not deleted, of other organizations and of organizations with a longer period.
// Envelopes past retention.completedDays / unfinishedDays are deleted by the run (archived or not). A purge
// that fails midway leaves the envelope untouched and the page resumes after the last envelope it finished.
//
// Envelopes are made and signed on the shared dev server and worker (as in every test); the retention runs
// go to a worker of this file on the time-skipping server, against the same PostgreSQL.
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { MockActivityEnvironment, TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { createRetentionActivities } from '../../activities/retention.ts';
import { AuditEvent, Envelope, Recipient } from '../../db/entities/index.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import type { RetentionPage } from '../../db/retention.ts';
import { storedFileLoader } from '../../db/stored-files.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { createFileObjects } from '../../storage/create-object-store.ts';
import { ensureRetentionSchedule, retentionScheduleOptions } from '../../temporal/retention-schedule.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import type { retentionWorkflow } from '../../workflows/retention.ts';
import {
  RETENTION_SCHEDULE_ID,
  RETENTION_TASK_QUEUE,
  RETENTION_WORKFLOW_TYPE,
  type RetentionSummary,
} from '../../workflows/retention-contracts.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { installQuietRuntime } from '../support/infrastructure.ts';
import { encodePng } from '../support/png.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
const TASK_QUEUE = 'retention-time-skipping';

let harness: ApiHarness;
let env: TestWorkflowEnvironment;
let orm: Orm;

beforeAll(async () => {
  installQuietRuntime();
  harness = await openApiHarness();
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: inject('timeSkippingServerPath') } },
  });
  orm = await createOrm({ databaseUrl: inject('databaseUrl'), poolMax: 2 });
});
afterAll(async () => {
  await env?.teardown();
  await orm?.close();
  await harness?.close();
});

// ---- Making envelopes --------------------------------------------------------------------------------------

interface Organization {
  integrator: Integrator;
  headers: { authorization: string };
  owner: SignedInUser;
}

async function organization(retention: Record<string, number | null>): Promise<Organization> {
  const integrator = await newIntegrator(harness);
  const owner = await signedInUser(harness, { role: 'owner', organizationId: integrator.organizationId });
  const settings = await harness.app.inject({
    method: 'PUT',
    url: '/api/organization/settings',
    headers: owner.headers,
    payload: { retention },
  });
  expect(settings.statusCode, settings.body).toBe(200);
  return { integrator, headers: await integrator.auth(), owner };
}

async function upload(org: Organization, title: string): Promise<string> {
  const boundary = `----retention-${randomUUID()}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="contract.pdf"\r\n` +
        'Content-Type: application/pdf\r\n\r\n',
    ),
    Buffer.from(await buildDemoPdf(title)),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const response = await harness.app.inject({
    method: 'POST',
    url: '/api/v1/files/upload',
    headers: { ...org.headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().id;
}

const box = { page: 1, width: 200, height: 40 };
const FIELDS = [
  { type: 'Full name', role: 'Client', label: 'Client name', x: 56, y: 560, ...box },
  { type: 'Signature', role: 'Client', label: 'Client signature', x: 56, y: 620, ...box },
  { type: 'Signature', role: 'Provider', label: 'Provider signature', x: 320, y: 620, ...box },
];
const RECIPIENTS = [
  { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'ManualLink' },
  { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', deliveryChannel: 'ManualLink' },
];

/** An envelope made from an uploaded file, sent. */
async function sentFromFile(org: Organization, fileId: string): Promise<string> {
  const created = await harness.app.inject({
    method: 'POST',
    url: '/api/v1/envelopes/from-file',
    headers: org.headers,
    payload: { title: 'Retained agreement', fileId, fields: FIELDS, recipients: RECIPIENTS },
  });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().id as string;
  const sent = await harness.app.inject({
    method: 'POST',
    url: `/api/v1/envelopes/${id}/send`,
    headers: org.headers,
  });
  expect(sent.statusCode, sent.body).toBe(200);
  return id;
}

/** An envelope made from the organization's template, sent. */
async function sentFromTemplate(org: Organization): Promise<string> {
  const created = await harness.app.inject({
    method: 'POST',
    url: '/api/v1/envelopes/from-template',
    headers: org.headers,
    payload: { title: 'Template agreement', templateId: org.integrator.templateId, recipients: RECIPIENTS },
  });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().id as string;
  const sent = await harness.app.inject({
    method: 'POST',
    url: `/api/v1/envelopes/${id}/send`,
    headers: org.headers,
  });
  expect(sent.statusCode, sent.body).toBe(200);
  return id;
}

const signer = (method: 'GET' | 'PUT' | 'POST', token: string, path = '', payload?: unknown) =>
  harness.app.inject({
    method,
    url: `/api/signing/${token}${path}`,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

const signature = () =>
  encodePng(60, 20, (_x, y) => (Math.abs(y - 10) < 2 ? [20, 30, 120, 255] : [0, 0, 0, 0])).toString('base64');

/** Both signers sign through the signer API (each a signature image), and the envelope completes. */
async function signedByBoth(org: Organization, envelopeId: string): Promise<void> {
  const links = await issueSigningLinks(harness.ctx, org.integrator.organizationId, envelopeId);
  for (const name of ['Dana Levi', 'Sam Cohen']) {
    const token = links.find((link) => link.fullName === name)?.url.split('/sign/')[1] as string;
    const view = await signer('GET', token);
    expect(view.statusCode, view.body).toBe(200);
    const values = (view.json().fields as { fieldDefinitionId: string; type: string }[]).map((field) => ({
      fieldDefinitionId: field.fieldDefinitionId,
      value: field.type === 'Signature' ? { imagePngBase64: signature(), typedName: name } : name,
    }));
    const saved = await signer('PUT', token, '/fields', { values });
    expect(saved.statusCode, saved.body.slice(0, 300)).toBe(200);
    const done = await signer('POST', token, '/complete', { consent: true });
    expect(done.statusCode, done.body.slice(0, 300)).toBe(200);
  }
  await harness.ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId)).result();
}

/** Completed without signer files (the service completes each recipient). */
async function completedQuickly(org: Organization, envelopeId: string): Promise<void> {
  const recipients = await orm.em
    .fork()
    .find(Recipient, { envelopeId }, { orderBy: { signingOrder: 'asc' } });
  for (const recipient of recipients) {
    await completeRecipient(harness.ctx, org.integrator.organizationId, envelopeId, recipient.id);
  }
  await harness.ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId)).result();
}

async function cancel(org: Organization, envelopeId: string): Promise<void> {
  const response = await harness.app.inject({
    method: 'POST',
    url: `/api/v1/envelopes/${envelopeId}/cancel`,
    headers: org.headers,
    payload: {},
  });
  expect(response.statusCode, response.body).toBe(200);
}

async function lifecycle(org: Organization, envelopeId: string, action: 'archive' | 'delete') {
  const response = await harness.app.inject({
    method: 'POST',
    url: `/api/documents/${envelopeId}/${action}`,
    headers: org.owner.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

// ---- Reading what happened ---------------------------------------------------------------------------------

const row = (id: string) => orm.em.fork().findOneOrFail(Envelope, { id });

const eventsOf = (id: string, type: string) =>
  orm.em.fork().find(AuditEvent, { envelopeId: id, type }, { orderBy: { sequence: 'asc' } });

/** Every file an envelope names (its source, final PDF, audit trail, the signers' files) with its content size. */
async function filesOf(id: string) {
  const envelope = await row(id);
  const values = await orm.em
    .fork()
    .getConnection()
    .execute<{ file_id: string }[]>(
      `select value ->> 'fileId' as file_id from envelope_field_value
        where envelope_id = ? and jsonb_typeof(value) = 'object' and value ->> 'fileId' is not null`,
      [id],
    );
  const ids = [
    envelope.sourceFileId,
    envelope.finalPdfFileId,
    envelope.auditTrailFileId,
    ...values.map((value) => value.file_id),
  ].filter((fileId): fileId is string => Boolean(fileId));
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<{ id: string; bytes: number; purged_at: string | null; size_bytes: number; sha256: string }[]>(
      // The bytes a reader gets: the registered object's while the file is not purged (readers treat a purged
      // file as absent; its unreferenced object is the orphan sweep's), none after.
      `select f.id, case when f.purged_at is null then coalesce(o.size_bytes, 0) else 0 end as bytes, f.purged_at,
              f.size_bytes, f.sha256
         from stored_file f left join file_object o on o.key = f.sha256
        where f.id = any(?::uuid[]) order by f.id`,
      [`{${ids.join(',')}}`],
    );
  return rows.map((file) => ({ ...file, bytes: Number(file.bytes) }));
}

/** One retention run on the time-skipping server, at its current time. */
async function runRetention(): Promise<RetentionSummary> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: createActivities({ orm }),
  });
  // A plain client, not the environment's: that one lets the test server skip time on its own while it waits
  // for a result (it once jumped ten years, to a far timer), and the days that pass must be only the ones the
  // test sleeps.
  const client = new Client({ connection: env.connection });
  return worker.runUntil(
    client.workflow.execute<typeof retentionWorkflow>(RETENTION_WORKFLOW_TYPE, {
      workflowId: `retention-test-${randomUUID()}`,
      taskQueue: TASK_QUEUE,
      args: [{}],
    }),
  );
}

// ---- The tests ---------------------------------------------------------------------------------------------

describe('the retention run, days passing under the time-skipping server', () => {
  it('purges a deleted envelope’s files after retention.deletedDays and not before, exactly once; deletes by completedDays and unfinishedDays', async () => {
    // Organization A keeps deleted documents' files 3 days.
    const a = await organization({ deletedDays: 3 });
    const ownUpload = await upload(a, 'Own upload');
    const sharedUpload = await upload(a, 'Shared upload');
    const purged = await sentFromFile(a, ownUpload);
    await signedByBoth(a, purged);
    // Two envelopes of one upload: one deleted, one still active, which keeps the upload.
    const sharing = await sentFromFile(a, sharedUpload);
    await cancel(a, sharing);
    const active = await sentFromFile(a, sharedUpload);
    await cancel(a, active);
    const kept = await sentFromTemplate(a);
    await completedQuickly(a, kept);
    const archived = await sentFromTemplate(a);
    await completedQuickly(a, archived);
    await lifecycle(a, archived, 'archive');
    // Organization B keeps them 30 days (the default).
    const b = await organization({});
    const theirs = await sentFromTemplate(b);
    await completedQuickly(b, theirs);
    // Organization C deletes completed documents after 1 day and unfinished ones after 3.
    const c = await organization({ completedDays: 1, unfinishedDays: 3 });
    const completedC = await sentFromTemplate(c);
    await completedQuickly(c, completedC);
    const archivedC = await sentFromTemplate(c);
    await completedQuickly(c, archivedC);
    await lifecycle(c, archivedC, 'archive');
    const cancelledC = await sentFromTemplate(c);
    await cancel(c, cancelledC);

    const deleted = await lifecycle(a, purged, 'delete');
    await lifecycle(a, sharing, 'delete');
    await lifecycle(b, theirs, 'delete');
    const untouched = [active, kept, archived, theirs];
    const before = new Map(
      await Promise.all([...untouched, purged].map(async (id) => [id, await filesOf(id)] as const)),
    );
    expect(before.get(purged)?.map((file) => file.bytes > 0)).toEqual([true, true, true, true, true]);

    // The test server's clock starts at the wall clock: what was deleted now is deleted "today".
    const start = await env.currentTimeMs();
    expect(Math.abs(start - Date.now())).toBeLessThan(60_000);

    // Today: nothing is due.
    await runRetention();
    const notYet = async () => {
      expect((await row(purged)).filesPurgedAt).toBeNull();
      expect(await eventsOf(purged, 'envelope.files_purged')).toEqual([]);
      expect(await filesOf(purged)).toEqual(before.get(purged));
    };
    await notYet();
    expect((await row(completedC)).status).toBe('Completed');
    // Two days later, A's deleted envelope is still within its 3 days.
    await env.sleep(2 * DAY_MS);
    await runRetention();
    await notYet();
    // Two days on, C's Completed envelopes (archived or not) are past completedDays; its Cancelled one is not
    // yet past unfinishedDays.
    for (const id of [completedC, archivedC]) {
      const envelope = await row(id);
      expect([envelope.status, envelope.previousStatus]).toEqual(['Deleted', 'Completed']);
      const [event] = await eventsOf(id, 'envelope.deleted');
      expect(event?.data).toMatchObject({
        previous_status: 'Completed',
        automatic: true,
        setting: 'retention.completedDays',
        days: 1,
      });
      // Deleted now, its files wait the default 30 days.
      expect(envelope.filesPurgedAt).toBeNull();
    }
    expect((await row(cancelledC)).status).toBe('Cancelled');

    // Past the third day.
    await env.sleep(DAY_MS + HOUR_MS);
    const due = await runRetention();
    expect(due.purged).toBeGreaterThanOrEqual(2);
    expect(Date.parse(due.asOf)).toBeGreaterThan(Date.parse(deleted.filesPurgeAfter));

    const files = await filesOf(purged);
    expect(files).toHaveLength(5);
    for (const file of files) {
      const original = before.get(purged)?.find((candidate) => candidate.id === file.id);
      // The bytes are gone; what the file was stays on record.
      expect(file).toMatchObject({ bytes: 0, size_bytes: original?.size_bytes, sha256: original?.sha256 });
      expect(Date.parse(file.purged_at as string)).toBeGreaterThan(Date.parse(deleted.deletedAt));
    }
    const envelope = await row(purged);
    expect(envelope.status).toBe('Deleted');
    expect(envelope.filesPurgedAt).toBeInstanceOf(Date);
    const [event, ...more] = await eventsOf(purged, 'envelope.files_purged');
    expect(more).toEqual([]);
    expect(event?.data.retention_days).toBe(3);
    expect(event?.data.deleted_at).toBe(deleted.deletedAt);
    const listed = event?.data.files as {
      file_id: string;
      kind: string;
      size_bytes: number;
      sha256: string;
    }[];
    expect(listed.map((file) => file.kind)).toEqual([
      'source',
      'final_pdf',
      'audit_trail',
      'signer_file',
      'signer_file',
    ]);
    expect(listed.map((file) => file.file_id).sort()).toEqual(files.map((file) => file.id).sort());
    expect(listed.find((file) => file.kind === 'source')?.file_id).toBe(ownUpload);

    // The envelope sharing an upload with an active one: purged, but the upload stays for the other.
    expect((await row(sharing)).filesPurgedAt).toBeInstanceOf(Date);
    const [shared] = await eventsOf(sharing, 'envelope.files_purged');
    expect(shared?.data.files).toEqual([]);
    expect((await filesOf(active))[0]).toMatchObject({ id: sharedUpload, purged_at: null });

    // What is not deleted, or another organization's with a longer period, is untouched.
    for (const id of untouched) {
      expect(await filesOf(id), id).toEqual(before.get(id));
      expect(await eventsOf(id, 'envelope.files_purged')).toEqual([]);
    }
    expect((await row(kept)).status).toBe('Completed');
    expect((await row(archived)).status).toBe('Archived');
    expect((await row(theirs)).filesPurgedAt).toBeNull();
    // C's Cancelled envelope is past unfinishedDays now.
    expect((await row(cancelledC)).status).toBe('Deleted');
    expect((await eventsOf(cancelledC, 'envelope.deleted'))[0]?.data).toMatchObject({
      previous_status: 'Cancelled',
      automatic: true,
      setting: 'retention.unfinishedDays',
      days: 3,
    });

    // The purged documents are gone for every reader: the public API's downloads, the renderers' loader.
    for (const document of ['final-pdf', 'audit-trail']) {
      const download = await harness.app.inject({
        method: 'GET',
        url: `/api/v1/envelopes/${purged}/documents/${document}`,
        headers: a.headers,
      });
      expect(download.statusCode, download.body).toBe(404);
      expect(download.json().error.message).toContain('purged');
    }
    const loaded = await storedFileLoader(
      orm.em.fork(),
      createFileObjects({ kind: 'postgres' }, orm.em),
      a.integrator.organizationId,
    )(files.map((f) => f.id));
    expect(loaded.size).toBe(0);

    // Run again: nothing is purged twice.
    await runRetention();
    expect(await eventsOf(purged, 'envelope.files_purged')).toHaveLength(1);
    expect(await eventsOf(sharing, 'envelope.files_purged')).toHaveLength(1);
    expect(await eventsOf(completedC, 'envelope.deleted')).toHaveLength(1);
    expect((await row(purged)).filesPurgedAt).toEqual(envelope.filesPurgedAt);
  });
});

describe('a purge that fails midway', () => {
  it('leaves the failing envelope whole, keeps what was done, and resumes after the last envelope finished', async () => {
    const d = await organization({ deletedDays: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const id = await sentFromTemplate(d);
      await completedQuickly(d, id);
      await lifecycle(d, id, 'delete');
      ids.push(id);
    }
    const [first, second] = ids.sort() as [string, string];
    const failing = (await row(second)).finalPdfFileId as string;
    const connection = orm.em.fork().getConnection();
    const trigger = `retention_test_${randomUUID().replaceAll('-', '')}`;
    await connection.execute(
      `create function ${trigger}() returns trigger language plpgsql as $$
         begin
           if old.id = '${failing}' then raise exception 'the disk is on fire'; end if;
           return new;
         end $$`,
    );
    await connection.execute(
      `create trigger ${trigger} before update on stored_file for each row execute function ${trigger}()`,
    );
    // Two days on: both are due (and nothing of other tests, whose periods are longer).
    const request = { asOf: new Date(Date.now() + 2 * DAY_MS).toISOString(), after: null, limit: 100 };
    const activities = createRetentionActivities({ orm });
    const heartbeats: unknown[] = [];
    // The failure is expected: the SDK's warning about it stays out of the output.
    const attempt = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
    attempt.on('heartbeat', (details: unknown) => heartbeats.push(details));
    try {
      await expect(attempt.run(activities.purgeDeletedEnvelopeFiles, request)).rejects.toThrow(
        /disk is on fire/,
      );
    } finally {
      await connection.execute(`drop trigger ${trigger} on stored_file`);
      await connection.execute(`drop function ${trigger}()`);
    }
    // The first envelope's purge committed; the second's rolled back whole.
    expect((await row(first)).filesPurgedAt).toBeInstanceOf(Date);
    expect(await eventsOf(first, 'envelope.files_purged')).toHaveLength(1);
    expect((await row(second)).filesPurgedAt).toBeNull();
    expect(await eventsOf(second, 'envelope.files_purged')).toEqual([]);
    expect((await filesOf(second)).every((file) => file.bytes > 0 && file.purged_at === null)).toBe(true);

    // Temporal's retry of the activity gets the last heartbeat's details: it continues after the first.
    const progress = heartbeats.at(-1) as { after: string; seen: number; changed: number };
    expect(progress).toMatchObject({ after: first, changed: 1 });
    const retry = new MockActivityEnvironment({ heartbeatDetails: progress });
    const page = (await retry.run(activities.purgeDeletedEnvelopeFiles, request)) as RetentionPage;
    expect(page.changed).toBeGreaterThanOrEqual(2);
    expect(await eventsOf(first, 'envelope.files_purged')).toHaveLength(1);
    expect(await eventsOf(second, 'envelope.files_purged')).toHaveLength(1);
    expect((await filesOf(second)).every((file) => file.bytes === 0 && file.purged_at !== null)).toBe(true);
  });
});

describe('the Temporal Schedule', () => {
  afterAll(async () => {
    await harness.ctx.temporal.schedule
      .getHandle(RETENTION_SCHEDULE_ID)
      .delete()
      .catch(() => {});
  });

  it('is created once, updated when its definition changes, and starts a retention run', async () => {
    const client = harness.ctx.temporal;
    expect(await ensureRetentionSchedule(client)).toBe('created');
    expect(await ensureRetentionSchedule(client)).toBe('unchanged');
    const handle = client.schedule.getHandle(RETENTION_SCHEDULE_ID);
    const described = await handle.describe();
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: RETENTION_WORKFLOW_TYPE,
      taskQueue: RETENTION_TASK_QUEUE,
    });
    expect(described.spec.calendars?.[0]).toMatchObject({
      hour: [{ start: 3, end: 3, step: 1 }],
      minute: [{ start: 30, end: 30, step: 1 }],
    });
    expect(described.policies).toMatchObject({ overlap: 'SKIP', catchupWindow: DAY_MS });
    expect(described.state.paused).toBe(false);

    // An operator's pause survives a worker start; another definition (an older Sigil's) is replaced.
    await handle.pause('maintenance');
    await handle.update((previous) => ({
      ...previous,
      spec: { calendars: [{ hour: 5, comment: 'an older definition' }] },
      action: { ...previous.action, memo: {} },
    }));
    expect(await ensureRetentionSchedule(client)).toBe('updated');
    const updated = await handle.describe();
    expect(updated.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 3, end: 3, step: 1 }] });
    expect(updated.state).toMatchObject({ paused: true, note: 'maintenance' });
    expect(updated.action.memo).toEqual(retentionScheduleOptions().action.memo);
    await handle.unpause();

    // "Trigger" in the Web UI: a run on the envelope workers, which finds nothing due today.
    await handle.trigger();
    await expect.poll(async () => (await handle.describe()).info.recentActions.length).toBeGreaterThan(0);
    const action = (await handle.describe()).info.recentActions[0];
    const workflowId = action?.action.workflow.workflowId as string;
    expect(workflowId.startsWith('retention-')).toBe(true);
    const summary = (await client.workflow.getHandle(workflowId).result()) as RetentionSummary;
    expect(summary).toMatchObject({ deleted: 0, purged: 0, files: 0 });
  });
});
