// Sealing with RFC 3161 timestamps (docs/sealing.md) against a real timestamp authority (OpenSSL's `ts -reply`
// behind HTTP, test/support/timestamp-authority.ts), on the real PostgreSQL and Temporal dev server, with
// workers of this file's own whose seal asks that authority: B-T, B-LT and B-LTA documents validated by pyHanko
// and pdfsig; an authority that is down while the policy requires a timestamp makes finalization wait durably
// (timers in the workflow's history) and seal once it is back; down beyond the configured time moves the
// envelope to FinalPdfFailed, and retry-final-pdf then seals exactly one final PDF; without a required
// timestamp the documents are sealed at B-B instead.
import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FinalizeSealingSettings } from '../../activities/finalize.ts';
import { createActivities } from '../../activities/index.ts';
import { webhookDeliverySettings } from '../../activities/webhooks.ts';
import { loadConfig } from '../../config/config.ts';
import { Envelope, StoredFile } from '../../db/entities/index.ts';
import { saveSecureSignaturePolicy, sealedDocumentsOf } from '../../db/sealing.ts';
import {
  DEFAULT_BOUNDS,
  type PadesLevel,
  type SecureSignatureSettings,
} from '../../domain/secure-signature.ts';
import { developmentCaDirectory } from '../../pdf/sealing/development-ca.ts';
import { findSignatures } from '../../pdf/sealing/inspect.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { retryFinalization } from '../../services/envelopes/retry-finalization.ts';
import { envelopeWorkflowInput } from '../../services/envelopes/send-envelope.ts';
import { createEnvelopeWorker } from '../../temporal/worker/worker.ts';
import { ENVELOPE_WORKFLOW_TYPE, envelopeWorkflowId } from '../../workflows/contracts.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { draftTwoSignerEnvelope } from '../support/context.ts';
import { runPdfsig, runPyhankoValidate } from '../support/pdf-validators.ts';
import { storedArtifacts, verifyOver } from '../support/sealed-envelope.ts';
import { startTestTimestampAuthority, type TestTimestampAuthority } from '../support/timestamp-authority.ts';

const PATIENT = `sealing-patient-${process.pid}`;
const IMPATIENT = `sealing-impatient-${process.pid}`;
const GIVE_UP_MS = 3000;

let harness: ApiHarness;
let tsa: TestTimestampAuthority;
let native: NativeConnection;
const workers: { worker: Worker; running: Promise<void> }[] = [];
let caPath: string;

beforeAll(async () => {
  harness = await openApiHarness();
  tsa = await startTestTimestampAuthority();
  const config = loadConfig();
  caPath = `${developmentCaDirectory(config.dataDir)}/current/ca.crt.pem`;
  native = await NativeConnection.connect({ address: inject('temporalAddress') });
  const sealing = (giveUpAfterMs: number): FinalizeSealingSettings => ({
    pkcs12: null,
    dataDir: config.dataDir,
    timestampAuthorities: [tsa.url],
    timestampTimeoutMs: 2000,
    retryInitialMs: 300,
    giveUpAfterMs,
  });
  for (const [taskQueue, giveUpAfterMs] of [
    [PATIENT, 120_000],
    [IMPATIENT, GIVE_UP_MS],
  ] as const) {
    const worker = await createEnvelopeWorker({
      connection: native,
      namespace: inject('namespace'),
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createActivities({
        orm: harness.ctx.orm,
        webhooks: webhookDeliverySettings('test'),
        notifications: { env: 'test', publicBaseUrl: 'http://localhost:3000' },
        sealing: sealing(giveUpAfterMs),
      }),
    });
    workers.push({ worker, running: worker.run() });
  }
});
afterAll(async () => {
  for (const { worker } of workers) worker.shutdown();
  await Promise.allSettled(workers.map((w) => w.running));
  await native?.close();
  await tsa?.close();
  await harness?.close();
});

/** A two-signer envelope under the policy, run on the task queue, both signers done. */
async function completedEnvelope(taskQueue: string, settings: SecureSignatureSettings) {
  const { organizationId, envelope, recipients } = await draftTwoSignerEnvelope(harness.ctx);
  await saveSecureSignaturePolicy(harness.ctx.orm.em.fork(), organizationId, {
    settings,
    bounds: DEFAULT_BOUNDS,
  });
  const handle = await harness.ctx.temporal.workflow.start(ENVELOPE_WORKFLOW_TYPE, {
    workflowId: envelopeWorkflowId(envelope.id),
    taskQueue,
    args: [envelopeWorkflowInput(envelope, recipients)],
  });
  await until(
    async () => ((await statusOf(envelope.id)) !== 'Draft' ? true : undefined),
    'the envelope to be sent',
  );
  for (const recipient of recipients) {
    await completeRecipient(harness.ctx, organizationId, envelope.id, recipient.id);
  }
  return { organizationId, envelopeId: envelope.id, handle };
}

const verify = (bytes: Uint8Array) => verifyOver(harness.app, bytes);

async function until<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function statusOf(envelopeId: string): Promise<string> {
  return (await harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id: envelopeId })).status;
}

describe('sealing with a timestamp authority', () => {
  it.each<PadesLevel>(['B-T', 'B-LT', 'B-LTA'])(
    'seals at %s: pyHanko and pdfsig validate it, and the verification shows the timestamp',
    async (level) => {
      const before = tsa.requests();
      const { organizationId, envelopeId, handle } = await completedEnvelope(PATIENT, {
        level,
        timestampRequired: true,
        sealAuditTrail: true,
      });
      await handle.result();
      expect(await statusOf(envelopeId)).toBe('Completed');
      expect(tsa.requests()).toBeGreaterThan(before);
      const records = await sealedDocumentsOf(harness.ctx.orm.em.fork(), organizationId, envelopeId);
      expect(records.map((r) => r.level)).toEqual([level, level]);
      expect(records.every((r) => r.timestampAuthority === tsa.url)).toBe(true);
      const { finalPdf, auditTrail } = await storedArtifacts(harness.ctx, envelopeId);
      for (const bytes of [finalPdf, auditTrail]) {
        const hanko = await runPyhankoValidate(bytes, { trustRootPaths: [caPath, tsa.caCertificatePath] });
        expect(hanko.valid, hanko.raw).toBe(true);
        expect(hanko.hasSignatureTimestamp, hanko.raw).toBe(true);
        expect(hanko.signatures[0]?.timestampTrusted, hanko.raw).toBe(true);
        const poppler = await runPdfsig(bytes);
        const seal = poppler.signatures.find((s) => s.field === 'SigilSeal');
        expect(seal, poppler.raw).toMatchObject({ subFilter: 'ETSI.CAdES.detached', signatureValid: true });
        const text = Buffer.from(bytes).toString('latin1');
        // B-LT and B-LTA carry the validation data (a DSS with the certificates and the CA's CRL).
        expect(/\/DSS\s/.test(text) || text.includes('/DSS ')).toBe(level !== 'B-T');
        expect(findSignatures(bytes).some((s) => s.kind === 'document_timestamp')).toBe(level === 'B-LTA');
      }
      if (level !== 'B-T') {
        const ltv = await runPyhankoValidate(finalPdf, {
          trustRootPaths: [caPath, tsa.caCertificatePath],
          ltv: true,
        });
        expect(ltv.raw).toContain('SigilSeal');
      }
      const result = await verify(finalPdf);
      expect(result).toMatchObject({ verdict: 'intact', sealedBySigil: true });
      expect(result.signature?.level).toBe(level);
      expect(result.signature?.timestamp?.authority).toBeTruthy();
      const stamped = new Date(result.signature?.timestamp?.time ?? 0).getTime();
      expect(Math.abs(stamped - Date.now())).toBeLessThan(5 * 60_000);
    },
  );

  it('waits durably while no authority answers a required timestamp, and seals once one does', async () => {
    await tsa.setDown('refuse');
    try {
      const { organizationId, envelopeId, handle } = await completedEnvelope(PATIENT, {
        level: 'B-T',
        timestampRequired: true,
        sealAuditTrail: true,
      });
      // A failed attempt, then a timer: the wait is in the workflow's history (and the Web UI).
      await until(async () => {
        const history = await handle.fetchHistory();
        const events = history.events ?? [];
        const failed = events.some(
          (e) =>
            e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type ===
            'TimestampUnavailable',
        );
        const timers = events.filter((e) => e.timerStartedEventAttributes).length;
        return failed && timers >= 2 ? true : undefined;
      }, 'a failed seal and the waits after it');
      expect(await statusOf(envelopeId)).toBe('ProcessingFinalPdf');
      const row = await harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id: envelopeId });
      expect(row.finalPdfFileId ?? null).toBeNull();
      await tsa.setDown(false);
      await handle.result();
      expect(await statusOf(envelopeId)).toBe('Completed');
      const records = await sealedDocumentsOf(harness.ctx.orm.em.fork(), organizationId, envelopeId);
      expect(records.map((r) => [r.kind, r.level])).toEqual([
        ['audit_trail', 'B-T'],
        ['final_pdf', 'B-T'],
      ]);
    } finally {
      await tsa.setDown(false);
    }
  });

  it('gives up after the configured time with FinalPdfFailed; retry-final-pdf then seals exactly once', async () => {
    await tsa.setDown('error503');
    let organizationId = '';
    let envelopeId = '';
    try {
      const started = await completedEnvelope(IMPATIENT, {
        level: 'B-T',
        timestampRequired: true,
        sealAuditTrail: false,
      });
      organizationId = started.organizationId;
      envelopeId = started.envelopeId;
      await until(
        async () => ((await statusOf(envelopeId)) === 'FinalPdfFailed' ? true : undefined),
        'FinalPdfFailed',
      );
      const [failure] = await harness.ctx.orm.em.fork().execute<{ reason: string }[]>(
        `select data->>'reason' as reason from audit_event
            where envelope_id = ? and type = 'envelope.final_pdf_failed'`,
        [envelopeId],
      );
      expect(failure?.reason).toContain('no timestamp authority answered');
      expect(failure?.reason).toContain('HTTP 503');
      expect(failure?.reason).toContain('(tried for 3 s)');
    } finally {
      await tsa.setDown(false);
    }
    await retryFinalization(harness.ctx, organizationId, envelopeId);
    await harness.ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId)).result();
    expect(await statusOf(envelopeId)).toBe('Completed');
    const em = harness.ctx.orm.em.fork();
    const records = await sealedDocumentsOf(em, organizationId, envelopeId);
    expect(records.map((r) => [r.kind, r.level])).toEqual([['final_pdf', 'B-T']]);
    const files = await em.count(StoredFile, { organizationId, filename: { $like: '% - signed.pdf' } });
    expect(files).toBe(1);
    // The audit trail is not sealed under this policy: no signature in it.
    const { auditTrail } = await storedArtifacts(harness.ctx, envelopeId);
    expect(findSignatures(auditTrail)).toEqual([]);
  });

  it('seals at B-B when the policy does not require a timestamp and no authority answers', async () => {
    await tsa.setDown('refuse');
    try {
      const { organizationId, envelopeId, handle } = await completedEnvelope(PATIENT, {
        level: 'B-T',
        timestampRequired: false,
        sealAuditTrail: true,
      });
      await handle.result();
      const records = await sealedDocumentsOf(harness.ctx.orm.em.fork(), organizationId, envelopeId);
      expect(records.map((r) => [r.kind, r.level, r.timestampAuthority])).toEqual([
        ['audit_trail', 'B-B', null],
        ['final_pdf', 'B-B', null],
      ]);
      const { finalPdf } = await storedArtifacts(harness.ctx, envelopeId);
      expect((await verify(finalPdf)).signature?.timestamp).toBeNull();
    } finally {
      await tsa.setDown(false);
    }
  });
});
