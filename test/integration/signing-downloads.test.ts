// The signed copy for every recipient (issue 32): once an envelope is Completed, a signer's and a Cc's link
// download the final PDF and the audit trail — the very bytes /api/v1 serves (SHA-256) — each download in the
// audit log; 404 in the error body before completion, for a cancelled envelope, after the retention deleted it
// and purged its files, and for an unknown token; the original document before completion; the signer API's
// rate limit; the completed email's link to those downloads and the final PDF attached when the organization
// asks for it (through a real SMTP server), up to 10 MB.
import { createHash, randomUUID } from 'node:crypto';
import type { ParsedMail } from 'mailparser';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationActivities } from '../../activities/notifications.ts';
import { verifyAuditChain } from '../../db/audit-chain.ts';
import {
  AuditEvent,
  DevNotification,
  Envelope,
  Organization,
  StoredFile,
  Template,
} from '../../db/entities/index.ts';
import { deleteByRetention, purgeEnvelopeFiles } from '../../db/retention.ts';
import { COMPLETED_EMAIL_ATTACHMENT_MAX_BYTES } from '../../domain/account.ts';
import { randomToken } from '../../services/security/secrets.ts';
import {
  type ApiHarness,
  buildTestApp,
  type Integrator,
  newIntegrator,
  openApiHarness,
  sentEnvelope,
} from '../support/api.ts';
import { testConfig } from '../support/context.ts';
import { encodePng } from '../support/png.ts';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.ts';
import { replaceStoredBytes } from '../support/stored-files.ts';

const SIGNER_IP = '203.0.113.44';
const TITLE = 'Lease agreement';
const DAY_MS = 24 * 60 * 60 * 1000;
const SMTP = { user: 'sigil-mailer', password: 'smtp-Pa55word-downloads' };

let harness: ApiHarness;
let acme: Integrator;
let sender: { organizationId: string; headers: Record<string, string> };
let smtp: SmtpSink;

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  sender = { organizationId: acme.organizationId, headers: await acme.auth() };
  smtp = await startSmtpSink(SMTP);
});
afterAll(async () => {
  await smtp?.close();
  await harness?.close();
});

const sha256 = (bytes: Uint8Array | Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A Parallel envelope from the demo template: two signers and a Cc, all by email, sent. */
async function sent() {
  return sentEnvelope(harness, sender, {
    title: TITLE,
    workflowType: 'Parallel',
    templateId: acme.templateId,
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@client.example' },
      { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@provider.example' },
      { roleName: 'Client', fullName: 'Avi Copy', email: 'avi@cc.example', type: 'Cc', language: 'he' },
    ],
  });
}

/** A value for a required field of the demo template. */
function valueFor(type: string, name: string): unknown {
  if (type === 'Signature' || type === 'Initials') {
    const png = encodePng(60, 20, (_x, y) => (Math.abs(y - 10) < 2 ? [20, 30, 120, 255] : [0, 0, 0, 0]));
    return { imagePngBase64: png.toString('base64'), typedName: name };
  }
  if (type === 'Date') return '2026-05-01';
  return name;
}

function signer(method: 'GET' | 'PUT' | 'POST', url: string, payload?: Record<string, unknown>) {
  return harness.app.inject({
    method,
    url,
    remoteAddress: SIGNER_IP,
    headers: { 'user-agent': 'Sigil downloads test' },
    ...(payload ? { payload } : {}),
  });
}

async function envelopeRow(id: string) {
  return harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id });
}

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const value = await probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The token of the `completed` message the worker sent `recipientId` (captured: no provider in tests). */
async function completedLinkToken(recipientId: string): Promise<string> {
  const notice = await waitFor(`the completed notice of ${recipientId}`, () =>
    harness.ctx.orm.em.fork().findOne(DevNotification, { recipientId, kind: 'completed' }),
  );
  return (notice.signingLink as string).split('/sign/')[1] as string;
}

/**
 * Sent, Dana downloads the original, both signers complete through the signer API, Completed with its files;
 * every recipient's token.
 */
async function completed() {
  const envelope = await sent();
  const original = await signer('GET', `/api/signing/${envelope.tokenOf('Dana Levi')}/documents/original`);
  expect(original.statusCode, original.body).toBe(200);
  for (const name of ['Dana Levi', 'Sam Cohen']) {
    const token = envelope.tokenOf(name);
    const { fields } = await downloads(token);
    const values = (fields as { fieldDefinitionId: string; type: string; required: boolean }[])
      .filter((field) => field.required)
      .map((field) => ({ fieldDefinitionId: field.fieldDefinitionId, value: valueFor(field.type, name) }));
    if (values.length > 0) {
      const saved = await signer('PUT', `/api/signing/${token}/fields`, { values });
      expect(saved.statusCode, saved.body).toBe(200);
    }
    const done = await signer('POST', `/api/signing/${token}/complete`, { consent: true });
    expect(done.statusCode, done.body).toBe(200);
  }
  await waitFor('Completed', async () => (await envelopeRow(envelope.id)).status === 'Completed');
  const recipients = await harness.app.inject({
    method: 'GET',
    url: `/api/v1/envelopes/${envelope.id}/recipients`,
    headers: sender.headers,
  });
  const cc = (recipients.json() as { id: string; type: string }[]).find((r) => r.type === 'Cc');
  if (!cc) throw new Error('no Cc');
  return {
    id: envelope.id,
    dana: envelope.tokenOf('Dana Levi'),
    danaId: envelope.recipientIdOf('Dana Levi'),
    // The Cc's only link: the one in their completed message.
    cc: await completedLinkToken(cc.id),
    ccId: cc.id,
  };
}

async function v1Document(id: string, document: 'final-pdf' | 'audit-trail') {
  return harness.app.inject({
    method: 'GET',
    url: `/api/v1/envelopes/${id}/documents/${document}`,
    headers: sender.headers,
  });
}

async function downloads(token: string) {
  const view = await signer('GET', `/api/signing/${token}`);
  expect(view.statusCode, view.body).toBe(200);
  return view.json();
}

async function downloadEvents(envelopeId: string) {
  return harness.ctx.orm.em
    .fork()
    .find(AuditEvent, { envelopeId, type: 'document.downloaded' }, { orderBy: { sequence: 'asc' } });
}

function expectNotFound(response: { statusCode: number; json(): unknown }, message: RegExp) {
  expect(response.statusCode).toBe(404);
  const body = response.json() as { error: Record<string, unknown> };
  expect(body.error).toMatchObject({ code: 'not_found', details: [] });
  expect(body.error.message).toMatch(message);
  expect(typeof body.error.request_id).toBe('string');
}

let shared: Awaited<ReturnType<typeof completed>>;
beforeAll(async () => {
  shared = await completed();
}, 60_000);

describe('the signed copy for every recipient', () => {
  it('serves a signer and a Cc the same final PDF and audit trail as /api/v1, each download recorded', async () => {
    const { id, dana, cc, danaId, ccId } = shared;
    for (const token of [dana, cc]) {
      const view = await downloads(token);
      expect(view.state).toBe('completed');
      expect(view.downloads).toEqual({
        finalPdf: `/api/signing/${token}/documents/final-pdf`,
        auditTrail: `/api/signing/${token}/documents/audit-trail`,
        original: null,
      });
    }
    expect((await downloads(cc)).recipient).toMatchObject({ name: 'Avi Copy', type: 'Cc' });

    const auditTrail = await v1Document(id, 'audit-trail');
    const expected = {
      'final-pdf': sha256((await v1Document(id, 'final-pdf')).rawPayload),
      'audit-trail': sha256(auditTrail.rawPayload),
    };
    const names = { 'final-pdf': `${TITLE} (signed).pdf`, 'audit-trail': `${TITLE} (audit trail).pdf` };
    for (const token of [dana, cc]) {
      for (const document of ['final-pdf', 'audit-trail'] as const) {
        const response = await signer('GET', `/api/signing/${token}/documents/${document}`);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers['content-type']).toBe('application/pdf');
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.headers['content-disposition']).toBe(
          `attachment; filename="${names[document]}"; filename*=UTF-8''${encodeURIComponent(names[document]).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
        );
        expect(sha256(response.rawPayload)).toBe(expected[document]);
      }
    }

    const events = await downloadEvents(id);
    expect(
      events.map((event) => [event.recipientId, event.data.document, event.data.sha256, event.data.ip]),
    ).toEqual([
      [danaId, 'original', expect.any(String), SIGNER_IP],
      [danaId, 'final-pdf', expected['final-pdf'], SIGNER_IP],
      [danaId, 'audit-trail', expected['audit-trail'], SIGNER_IP],
      [ccId, 'final-pdf', expected['final-pdf'], SIGNER_IP],
      [ccId, 'audit-trail', expected['audit-trail'], SIGNER_IP],
    ]);
    expect(events[0]?.data).toMatchObject({ user_agent: 'Sigil downloads test' });
    // The download before completion is in the audit trail, named in its words.
    const trail = await getDocument({ data: new Uint8Array(auditTrail.rawPayload), verbosity: 0 }).promise;
    const words: string[] = [];
    for (let number = 1; number <= trail.numPages; number += 1) {
      const items = (await (await trail.getPage(number)).getTextContent()).items;
      words.push(...items.map((item) => ('str' in item ? item.str : '')));
    }
    expect(words.join(' ')).toContain('Document downloaded');
    expect((await verifyAuditChain(harness.ctx.orm.em.fork(), id))?.intact).toBe(true);

    // After completion the original is part of the signed document: 404 pointing there, nothing recorded.
    expectNotFound(await signer('GET', `/api/signing/${dana}/documents/original`), /final-pdf/);
    expect(await downloadEvents(id)).toHaveLength(5);
    // An archived envelope is still the recipient's completed document.
    await harness.ctx.orm.em
      .fork()
      .nativeUpdate(Envelope, { id }, { status: 'Archived', previousStatus: 'Completed' });
    expect((await downloads(cc)).state).toBe('completed');
    const archived = await signer('GET', `/api/signing/${cc}/documents/final-pdf`);
    expect(sha256(archived.rawPayload)).toBe(expected['final-pdf']);
    await harness.ctx.orm.em
      .fork()
      .nativeUpdate(Envelope, { id }, { status: 'Completed', previousStatus: null });
  });

  it('offers the original before completion and 404 for the signed copy; 404 when cancelled or unknown', async () => {
    const envelope = await sent();
    const token = envelope.tokenOf('Dana Levi');
    const view = await downloads(token);
    expect(view.state).toBe('ready');
    expect(view.downloads).toEqual({
      finalPdf: null,
      auditTrail: null,
      original: `/api/signing/${token}/documents/original`,
    });
    expectNotFound(
      await signer('GET', `/api/signing/${token}/documents/final-pdf`),
      /signed document is not available: the envelope is not completed yet/,
    );
    expectNotFound(
      await signer('GET', `/api/signing/${token}/documents/audit-trail`),
      /audit trail is not available/,
    );

    // The original: the envelope's source PDF as sent, nobody's values.
    const original = await signer('GET', `/api/signing/${token}/documents/original`);
    expect(original.statusCode, original.body).toBe(200);
    expect(original.headers['content-type']).toBe('application/pdf');
    expect(original.headers['content-disposition']).toContain(`filename="${TITLE}.pdf"`);
    const em = harness.ctx.orm.em.fork();
    const row = await em.findOneOrFail(Envelope, { id: envelope.id });
    const template = await em.findOneOrFail(Template, { id: row.templateId as string });
    const source = await em.findOneOrFail(StoredFile, { id: template.fileId });
    expect(sha256(original.rawPayload)).toBe(source.sha256);
    expect(
      (await downloadEvents(envelope.id)).map((e) => [e.recipientId, e.data.document, e.data.sha256]),
    ).toEqual([[envelope.recipientIdOf('Dana Levi'), 'original', source.sha256]]);

    const cancelled = await harness.app.inject({
      method: 'POST',
      url: `/api/v1/envelopes/${envelope.id}/cancel`,
      headers: sender.headers,
      payload: { reason: 'Wrong tenant' },
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    await waitFor('Cancelled', async () => (await envelopeRow(envelope.id)).status === 'Cancelled');
    expect((await downloads(token)).downloads).toEqual({ finalPdf: null, auditTrail: null, original: null });
    for (const document of ['final-pdf', 'audit-trail'] as const) {
      expectNotFound(
        await signer('GET', `/api/signing/${token}/documents/${document}`),
        /not available: this envelope was not completed \(it is cancelled\)/,
      );
    }
    expectNotFound(
      await signer('GET', `/api/signing/${token}/documents/original`),
      /only while you are asked to act on it; this signing link is cancelled/,
    );

    for (const document of ['final-pdf', 'audit-trail', 'original']) {
      expectNotFound(
        await signer('GET', `/api/signing/${randomToken()}/documents/${document}`),
        /signing link was not found/,
      );
    }
    const unknownDocument = await signer('GET', `/api/signing/${token}/documents/source`);
    expect(unknownDocument.statusCode).toBe(400);
    expect(unknownDocument.json().error.code).toBe('invalid_request');
    expect(await downloadEvents(envelope.id)).toHaveLength(1);
  });

  it('asks an OTP recipient without a signer session for their code before the original', async () => {
    const envelope = await sentEnvelope(harness, sender, {
      title: TITLE,
      workflowType: 'Parallel',
      templateId: acme.templateId,
      recipients: [
        {
          roleName: 'Client',
          fullName: 'Dana Levi',
          phone: '+972501234567',
          deliveryChannel: 'ManualLink',
          authenticationMethod: 'OtpSms',
        },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@provider.example' },
      ],
    });
    const token = envelope.tokenOf('Dana Levi');
    expect(await downloads(token)).toMatchObject({
      state: 'ready',
      authenticated: false,
      downloads: { finalPdf: null, auditTrail: null, original: null },
    });
    const refused = await signer('GET', `/api/signing/${token}/documents/original`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toMatch(/verify the one-time code first/);
    expect(await downloadEvents(envelope.id)).toHaveLength(0);
  });

  it('stops serving once the retention deleted the envelope, and after its files are purged', async () => {
    const envelope = await completed();
    const first = await signer('GET', `/api/signing/${envelope.cc}/documents/final-pdf`);
    expect(first.statusCode).toBe(200);
    await harness.ctx.orm.em
      .fork()
      .nativeUpdate(
        Organization,
        { id: acme.organizationId },
        { retentionCompletedDays: 1, retentionDeletedDays: 1 },
      );
    try {
      const now = Date.now();
      expect(await deleteByRetention(harness.ctx.orm.em, envelope.id, new Date(now + 2 * DAY_MS))).toBe(true);
      expect((await downloads(envelope.cc)).downloads.finalPdf).toBeNull();
      expectNotFound(
        await signer('GET', `/api/signing/${envelope.cc}/documents/final-pdf`),
        /the organization deleted this envelope/,
      );
      const purged = await purgeEnvelopeFiles(harness.ctx.orm.em, envelope.id, new Date(now + 4 * DAY_MS));
      expect(purged?.files).toBeGreaterThanOrEqual(2);
      expect((await v1Document(envelope.id, 'final-pdf')).statusCode).toBe(404);
      for (const document of ['final-pdf', 'audit-trail'] as const) {
        expectNotFound(
          await signer('GET', `/api/signing/${envelope.dana}/documents/${document}`),
          /not available/,
        );
      }
      // Only the downloads before the deletion are in the audit log: the original, the Cc's final PDF.
      expect((await downloadEvents(envelope.id)).map((event) => event.data.document)).toEqual([
        'original',
        'final-pdf',
      ]);
    } finally {
      await harness.ctx.orm.em
        .fork()
        .nativeUpdate(
          Organization,
          { id: acme.organizationId },
          { retentionCompletedDays: null, retentionDeletedDays: null },
        );
    }
  });

  it("counts downloads against the signer API's per-address rate limit", async () => {
    const config = testConfig();
    const app = await buildTestApp(harness.ctx, {
      ...config,
      api: { ...config.api, signingRatePerMinute: 2 },
    });
    try {
      const get = () =>
        app.inject({
          method: 'GET',
          url: `/api/signing/${shared.dana}/documents/final-pdf`,
          remoteAddress: '203.0.113.45',
        });
      expect((await get()).statusCode).toBe(200);
      expect((await get()).statusCode).toBe(200);
      const third = await get();
      expect(third.statusCode).toBe(429);
      expect(third.json().error.code).toBe('rate_limited');
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });
});

describe('the completed email', () => {
  const PUBLIC_BASE_URL = 'https://sign.sigil.example';

  function sendCompleted(recipientId: string, envelopeId = shared.id) {
    const { sendNotification } = createNotificationActivities({
      orm: harness.ctx.orm,
      config: {
        env: 'test',
        publicBaseUrl: PUBLIC_BASE_URL,
        notifications: {
          email: {
            transport: { host: '127.0.0.1', port: smtp.port, secure: false, ...SMTP },
            from: 'sign@sigil.example',
          },
          twilio: null,
        },
      },
    });
    return sendNotification({
      notificationId: randomUUID(),
      organizationId: acme.organizationId,
      envelopeId,
      kind: 'completed',
      recipientId,
    });
  }

  async function mailAfter(before: number, address: string): Promise<ParsedMail> {
    await smtp.waitFor(before + 1);
    const mail = smtp.received.slice(before).find((m) => m.envelopeTo.includes(address));
    if (!mail) throw new Error(`no email to ${address}`);
    return mail.parsed;
  }

  async function attachSetting(on: boolean) {
    await harness.ctx.orm.em
      .fork()
      .nativeUpdate(Organization, { id: acme.organizationId }, { attachFinalPdfToCompletedEmail: on });
  }

  it("links to the recipient's own downloads, and attaches the final PDF only when the organization asks", async () => {
    const finalPdf = sha256((await v1Document(shared.id, 'final-pdf')).rawPayload);

    // Off (the default): the link, no attachment.
    let before = smtp.received.length;
    expect((await sendCompleted(shared.danaId)).status).toBe('sent');
    const plain = await mailAfter(before, 'dana@client.example');
    expect(plain.attachments).toHaveLength(0);
    const link = plain.text?.match(
      /Download the signed document: (https:\/\/sign\.sigil\.example\/sign\/[\w-]{43})/,
    );
    if (!link) throw new Error(`no download link in: ${plain.text}`);
    expect(plain.html).toContain('Download the signed document');
    // The link opens the recipient's own view, which offers the signed copy, and it downloads.
    const token = (link[1] as string).split('/sign/')[1] as string;
    expect((await downloads(token)).downloads.finalPdf).toBe(`/api/signing/${token}/documents/final-pdf`);
    const download = await signer('GET', `/api/signing/${token}/documents/final-pdf`);
    expect(sha256(download.rawPayload)).toBe(finalPdf);

    await attachSetting(true);
    try {
      before = smtp.received.length;
      await sendCompleted(shared.danaId);
      const attached = await mailAfter(before, 'dana@client.example');
      expect(attached.attachments.map((a) => [a.filename, a.contentType])).toEqual([
        [`${TITLE} (signed).pdf`, 'application/pdf'],
      ]);
      expect(sha256(attached.attachments[0]?.content as Buffer)).toBe(finalPdf);
      expect(attached.text).toContain('The signed document is attached to this email.');
      // In Hebrew, for the Cc.
      before = smtp.received.length;
      await sendCompleted(shared.ccId);
      const hebrew = await mailAfter(before, 'avi@cc.example');
      expect(hebrew.attachments).toHaveLength(1);
      expect(hebrew.text).toContain('המסמך החתום מצורף להודעה זו.');
      expect(hebrew.text).toContain('להורדת המסמך החתום');
    } finally {
      await attachSetting(false);
    }
  });

  it('sends only the link, saying why, when the final PDF is larger than 10 MB', async () => {
    const envelope = await completed();
    const row = await envelopeRow(envelope.id);
    const big = Buffer.alloc(COMPLETED_EMAIL_ATTACHMENT_MAX_BYTES + 1, 0x25);
    await replaceStoredBytes(harness.ctx, row.finalPdfFileId as string, big);
    await attachSetting(true);
    try {
      const before = smtp.received.length;
      await sendCompleted(envelope.danaId, envelope.id);
      const mail = await mailAfter(before, 'dana@client.example');
      expect(mail.attachments).toHaveLength(0);
      expect(mail.text).toContain(
        'The signed document (10.0 MB) is too large to attach to this email: download it with the link above.',
      );
      expect(mail.text).toMatch(/Download the signed document: https:\/\/sign\.sigil\.example\/sign\//);
    } finally {
      await attachSetting(false);
    }
  });
});
