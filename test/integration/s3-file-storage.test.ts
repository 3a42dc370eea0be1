// The envelope lifecycle with STORAGE=s3 against a real SeaweedFS (issue 36): the API and a worker of their own
// (on a Temporal namespace of this file, so the suite's PostgreSQL-storing workers never take its tasks) store the
// template's PDF, the final PDF and the audit trail as objects in the bucket (listed with @aws-sdk/client-s3, each
// hashing to its key); GET /api/v1/envelopes/{id}/documents/final-pdf answers 200 application/pdf with the bytes,
// never a redirect to the store; and an object whose bytes were overwritten in the bucket is refused — the answer
// is cut off, the corrupt bytes never arrive as the file. Finalization retries a read the store could not answer
// (only corrupt bytes fail it for good).
import { createHash, randomBytes } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Client, type Connection } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, type Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createFinalizeActivities } from '../../activities/finalize.ts';
import { createActivities, finalizeSealingSettings } from '../../activities/index.ts';
import { webhookDeliverySettings } from '../../activities/webhooks.ts';
import { buildApp } from '../../api/app.ts';
import { Envelope, StoredFile, Template } from '../../db/entities/index.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import type { FileObjects } from '../../storage/file-objects.ts';
import { ObjectIntegrityError } from '../../storage/object-store.ts';
import { ensureSearchAttributes } from '../../temporal/search-attributes.ts';
import { createEnvelopeWorker } from '../../temporal/worker/worker.ts';
import { type Integrator, listenLocally, newIntegrator } from '../support/api.ts';
import { bearer, callAs } from '../support/app-requests.ts';
import { draftTwoSignerEnvelope, openTestContext, type TestContext, testConfig } from '../support/context.ts';
import { installQuietRuntime } from '../support/infrastructure.ts';
import { type RunningSeaweedfs, startSeaweedfs } from '../support/seaweedfs.ts';

let seaweedfs: RunningSeaweedfs;
let rawS3: S3Client;
let bucket = '';
let base: TestContext;
let ctx: TestContext;
let app: FastifyInstance;
let url = '';
let worker: Worker | undefined;
let running: Promise<void> | undefined;
let native: NativeConnection | undefined;
let acme: Integrator;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  seaweedfs = await startSeaweedfs();
  bucket = `sigil-lifecycle-${randomBytes(4).toString('hex')}`;
  const s3 = await seaweedfs.bucket(bucket);
  rawS3 = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: s3.credentials ?? undefined,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  base = await openTestContext({ storage: { kind: 's3', s3 } });
  const connection = base.temporal.connection as Connection;
  const namespace = `sigil-s3-${randomBytes(4).toString('hex')}`;
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  // A new namespace takes a moment to be known to every part of the server.
  for (let attempt = 0; ; attempt++) {
    try {
      await ensureSearchAttributes(connection, namespace);
      break;
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((resume) => setTimeout(resume, 200));
    }
  }
  const client = new Client({ connection, namespace });
  const shared = base;
  ctx = {
    orm: shared.orm,
    get em() {
      return shared.orm.em.fork();
    },
    temporal: client,
    config: shared.config,
    files: shared.files,
    close: () => shared.close(),
  };

  installQuietRuntime();
  const config = testConfig();
  native = await NativeConnection.connect({ address: inject('temporalAddress') });
  worker = await createEnvelopeWorker({
    connection: native,
    namespace,
    activities: createActivities({
      orm: ctx.orm,
      files: ctx.files,
      webhooks: webhookDeliverySettings('test'),
      notifications: { env: 'test', publicBaseUrl: config.publicBaseUrl },
      sealing: finalizeSealingSettings(config),
    }),
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  running = worker.run();

  app = await buildApp({
    config,
    orm: ctx.orm,
    temporal: { connection, client, namespace },
    logger: pino({ level: 'silent' }),
    files: ctx.files,
  });
  url = await listenLocally(app);
  acme = await newIntegrator({ app, ctx, close: async () => {} });
}, 20 * 60_000);

afterAll(async () => {
  await app?.close();
  worker?.shutdown();
  await running?.catch(() => {});
  await native?.close();
  rawS3?.destroy();
  await ctx?.close();
  await seaweedfs?.stop();
});

async function bucketKeys(): Promise<string[]> {
  const listed = await rawS3.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (listed.Contents ?? []).map((object) => object.Key as string);
}

async function bucketBytes(key: string): Promise<Buffer> {
  const answer = await rawS3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(
    await (answer.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
  );
}

describe('the envelope lifecycle with STORAGE=s3', () => {
  it('stores every file in the bucket, serves the final PDF as bytes, and refuses a corrupted object', async () => {
    const reader = bearer(await acme.token(['envelopes.read', 'envelopes.write']));
    const created = await callAs<{ id: string }>(
      app,
      reader,
      'POST',
      '/api/v1/envelopes/from-template',
      {
        title: 'Services agreement',
        templateId: acme.templateId,
        recipients: [
          { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' },
          { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
        ],
      },
      { status: 201 },
    );
    const envelopeId = created.id;
    await callAs(app, reader, 'POST', `/api/v1/envelopes/${envelopeId}/send`, undefined, { status: 200 });
    const { recipients } = await findEnvelope(ctx, acme.organizationId, envelopeId);
    for (const recipient of recipients) {
      await completeRecipient(ctx, acme.organizationId, envelopeId, recipient.id);
    }
    await expect
      .poll(async () => (await findEnvelope(ctx, acme.organizationId, envelopeId)).envelope.status, {
        timeout: 120_000,
      })
      .toBe('Completed');

    const em = ctx.orm.em.fork();
    const envelope = await em.findOneOrFail(Envelope, { id: envelopeId });
    const template = await em.findOneOrFail(Template, { id: acme.templateId });
    const [source, finalPdf, auditTrail] = await Promise.all(
      [template.fileId, envelope.finalPdfFileId, envelope.auditTrailFileId].map((id) =>
        em.findOneOrFail(StoredFile, { id: id as string }),
      ),
    );
    // The template's PDF is the demo PDF every test file uploads: in the suite's shared database its bytes may be
    // registered in PostgreSQL already, and a put of bytes already stored leaves them where they are (content
    // addressing). The final PDF and the audit trail are this envelope's own bytes: new, so written to S3.
    const keys = await bucketKeys();
    const locationOf = async (key: string) =>
      (await em.execute<{ location: string }[]>('select location from file_object where key = ?', [key]))[0]
        ?.location;
    for (const file of [source, finalPdf, auditTrail]) {
      const key = file?.sha256 as string;
      const location = await locationOf(key);
      if (file !== source) expect(location).toBe('s3');
      if (location === 's3') {
        expect(keys).toContain(key);
        const bytes = await bucketBytes(key);
        expect(sha256(bytes)).toBe(key);
        expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
      } else {
        expect(location).toBe('postgres');
        expect(sha256(await ctx.files.readAll(key))).toBe(key);
      }
    }

    const token = await acme.token(['envelopes.read']);
    const download = () =>
      fetch(`${url}/api/v1/envelopes/${envelopeId}/documents/final-pdf`, {
        headers: { authorization: `Bearer ${token}` },
        redirect: 'manual',
      });
    const answer = await download();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/pdf');
    expect(answer.headers.get('location')).toBeNull();
    const served = Buffer.from(await answer.arrayBuffer());
    expect(sha256(served)).toBe(finalPdf?.sha256);

    // Other bytes of the same length under the final PDF's key, behind the service's back.
    const corrupt = randomBytes(served.length);
    await rawS3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: finalPdf?.sha256,
        Body: corrupt,
        ContentLength: corrupt.length,
      }),
    );
    const refused = await download()
      .then(async (response) => ({
        status: response.status,
        body: Buffer.from(await response.arrayBuffer()),
      }))
      .catch((error: unknown) => ({ error }));
    // Either the answer is cut off (the body never completes) or it is an error: never the corrupt bytes.
    if ('body' in refused) {
      expect(refused.status).not.toBe(200);
      expect(Buffer.compare(refused.body, corrupt)).not.toBe(0);
    } else {
      expect(refused.error).toBeInstanceOf(Error);
    }
  });
});

describe('finalization when the store is away', () => {
  it('retries a read of the source PDF that failed for want of the store; a corrupt source fails for good', async () => {
    const config = testConfig();
    const { envelope } = await draftTwoSignerEnvelope(ctx);
    const request = {
      envelopeId: envelope.id,
      organizationId: envelope.organizationId,
      completedAt: new Date().toISOString(),
    };
    const away = Object.assign(Object.create(ctx.files) as FileObjects, {
      readAll: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:8333');
      },
    });
    const run = (files: FileObjects) =>
      new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') }).run(
        createFinalizeActivities({ orm: ctx.orm, sealing: finalizeSealingSettings(config), files })
          .finalizeEnvelope,
        request,
      );
    const failure = await run(away).then(
      () => undefined,
      (error: unknown) => error,
    );
    // A plain error: Temporal retries it. Before, it became a non-retryable PdfRenderError (FinalPdfFailed).
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(ApplicationFailure);

    const corrupt = Object.assign(Object.create(ctx.files) as FileObjects, {
      readAll: async (key: string) => {
        throw new ObjectIntegrityError(key, 'its bytes hash to something else');
      },
    });
    const refused = await run(corrupt).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect((refused as ApplicationFailure).nonRetryable).toBe(true);
  });
});
