// Lifecycle events reach a webhook receiver: the envelope workflow queues one delivery per subscribed endpoint
// for each event it projects and starts each as an abandoned child workflow; the receiver checks every
// signature with its own HMAC code and sees the envelope from envelope.created to document.final_pdf_ready.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent } from '../../db/entities/index.ts';
import { cancelEnvelope } from '../../services/envelopes/cancel-envelope.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { viewSigningLink } from '../../services/signing/view-signing-link.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import {
  createOrganizationWithTemplate,
  openTestContext,
  type TestContext,
  TWO_SIGNERS,
} from '../support/context.ts';
import {
  type ReceivedRequest,
  startWebhookReceiver,
  verifies,
  type WebhookReceiver,
} from '../support/webhook-receiver.ts';

let ctx: TestContext;
let receiver: WebhookReceiver;
beforeAll(async () => {
  ctx = await openTestContext();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
});

interface Payload {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

async function organizationWithEndpoint(eventTypes?: string[]) {
  const { organization, template } = await createOrganizationWithTemplate(ctx);
  const path = `/hooks/${randomUUID()}`;
  const endpoint = await createWebhookEndpoint(ctx, {
    organizationId: organization.id,
    url: `${receiver.url}${path}`,
    eventTypes: eventTypes as never,
  });
  const ours = (request: ReceivedRequest) => request.path === path;
  return { organizationId: organization.id, templateId: template.id, endpoint, ours };
}

describe('lifecycle webhooks', () => {
  it('a full envelope: every event, signed, in order of the transitions, with the documented data', async () => {
    const { organizationId, templateId, endpoint, ours } = await organizationWithEndpoint();
    const envelope = await createEnvelope(ctx, {
      organizationId,
      templateId,
      title: 'Webhook lifecycle',
      externalReference: 'PO-hook-1',
      recipients: TWO_SIGNERS,
    });
    const { recipients } = await findEnvelope(ctx, organizationId, envelope.id);
    const [first, second] = recipients;
    await sendEnvelope(ctx, organizationId, envelope.id);
    const [link] = await issueSigningLinks(ctx, organizationId, envelope.id);
    await viewSigningLink(ctx, link?.url.split('/sign/')[1] as string, {
      ip: '203.0.113.9',
      userAgent: 'hook test',
    });
    await completeRecipient(ctx, organizationId, envelope.id, first?.id as string);
    await completeRecipient(ctx, organizationId, envelope.id, second?.id as string);
    await ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelope.id)).result();

    const requests = await receiver.waitFor(7, ours);
    for (const request of requests) expect(verifies(request, endpoint.secret)).toBe(true);
    const payloads = requests.map((r) => JSON.parse(r.rawBody) as Payload);
    const types = payloads.map((p) => p.type);
    // Deliveries are at-least-once and possibly out of order: compare as sets, then check each payload.
    expect([...types].sort()).toEqual(
      [
        'envelope.created',
        'envelope.sent',
        'recipient.opened',
        'recipient.completed',
        'recipient.completed',
        'envelope.completed',
        'document.final_pdf_ready',
      ].sort(),
    );
    for (const request of requests) {
      const payload = JSON.parse(request.rawBody) as Payload;
      expect(request.headers['x-service-event']).toBe(payload.type);
      expect(Object.keys(payload)).toEqual(['id', 'type', 'created_at', 'data']);
    }
    const completed = payloads.find((p) => p.type === 'envelope.completed');
    expect(completed?.data).toEqual({
      envelope_id: envelope.id,
      status: 'Completed',
      external_reference: 'PO-hook-1',
    });
    const opened = payloads.find((p) => p.type === 'recipient.opened');
    expect(opened?.data).toMatchObject({
      envelope_id: envelope.id,
      recipient_id: first?.id,
      recipient_status: 'LinkOpened',
    });
    // The signer's address and browser stay in the audit trail.
    expect(opened?.data).not.toHaveProperty('ip');
    expect(opened?.data).not.toHaveProperty('user_agent');
    const ready = payloads.find((p) => p.type === 'document.final_pdf_ready');
    const row = await findEnvelope(ctx, organizationId, envelope.id);
    expect(ready?.data).toMatchObject({
      envelope_id: envelope.id,
      final_pdf_file_id: row.envelope.finalPdfFileId,
      audit_trail_file_id: row.envelope.auditTrailFileId,
    });
    // The payload id of a workflow event is its audit event's id.
    const events = await ctx.orm.em.fork().find(AuditEvent, { envelopeId: envelope.id });
    const sent = payloads.find((p) => p.type === 'envelope.sent');
    expect(events.find((e) => e.type === 'envelope.sent')?.id).toBe(sent?.id);
    // Exactly one delivery per event: nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter(ours)).toHaveLength(7);
  });

  it('an endpoint receives only the event types it subscribes to; a cancel is delivered', async () => {
    const { organizationId, templateId, endpoint, ours } = await organizationWithEndpoint([
      'envelope.cancelled',
    ]);
    const envelope = await createEnvelope(ctx, {
      organizationId,
      templateId,
      title: 'Webhook cancel',
      recipients: TWO_SIGNERS,
    });
    await sendEnvelope(ctx, organizationId, envelope.id);
    await cancelEnvelope(ctx, organizationId, envelope.id, 'changed our mind');
    const [request] = await receiver.waitFor(1, ours);
    expect(verifies(request as ReceivedRequest, endpoint.secret)).toBe(true);
    const payload = JSON.parse(request?.rawBody as string) as Payload;
    expect(payload.type).toBe('envelope.cancelled');
    expect(payload.data).toEqual({
      envelope_id: envelope.id,
      status: 'Cancelled',
      external_reference: '',
      reason: 'changed our mind',
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter(ours)).toHaveLength(1);
  });
});
