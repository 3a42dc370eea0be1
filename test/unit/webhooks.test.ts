// Pure webhook rules: which addresses a production delivery may reach, the retry schedule, the signature
// and the payload body.
import { describe, expect, it } from 'vitest';
import { webhookSignature } from '../../activities/webhooks.ts';
import { privateTargetsAllowed, specialAddressReason } from '../../config/outbound-targets.ts';
import { assertWebhookEvent, webhookPayloadBody } from '../../db/webhook-deliveries.ts';
import { WEBHOOK_EVENT_TYPES } from '../../domain/vocabulary.ts';
import {
  WEBHOOK_MAX_ATTEMPTS,
  webhookDeliveryChildOptions,
  webhookRetryDelayMs,
} from '../../workflows/webhook-contracts.ts';
import { signatureMatches } from '../support/webhook-receiver.ts';

describe('delivery targets', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.20.30.40', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['2001:db8::1', 'reserved'],
    // NAT64 and other translations are judged by the IPv4 address they carry (169.254.169.254: metadata).
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b:1::a9fe:a9fe', 'local-use IPv4/IPv6 translation'],
    ['::ffff:0:a00:1', 'private'],
    ['::a00:1', 'IPv4-compatible'],
    ['2002:a9fe:a9fe::1', '6to4'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['fec0::1', 'site-local'],
    ['100::1', 'discard'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd12:3456::1', 'unique-local'],
    ['fc00::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::1]', 'loopback'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(specialAddressReason(address)).toContain(kind);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '192.169.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    // A public IPv4 address through the well-known NAT64 prefix is a public target.
    '64:ff9b::808:808',
  ])('accepts the public address %s', (address) => {
    expect(specialAddressReason(address)).toBeUndefined();
  });

  it('allows private targets only in development and test', () => {
    expect(privateTargetsAllowed('development')).toBe(true);
    expect(privateTargetsAllowed('test')).toBe(true);
    expect(privateTargetsAllowed('production')).toBe(false);
  });
});

describe('retry schedule', () => {
  it('waits 30 s, 2 min, 8 min and 32 min, each within ±20 %, then gives up', () => {
    const bases = [30_000, 120_000, 480_000, 1_920_000];
    for (const [index, base] of bases.entries()) {
      const attempt = index + 1;
      expect(webhookRetryDelayMs(attempt, 0)).toBe(base * 0.8);
      expect(webhookRetryDelayMs(attempt, 0.5)).toBe(base);
      expect(webhookRetryDelayMs(attempt, 0.999_999)).toBeCloseTo(base * 1.2, -1);
    }
    // Every delay grows, whatever the jitter: the shortest of one step exceeds the longest of the one before.
    for (let attempt = 2; attempt < WEBHOOK_MAX_ATTEMPTS; attempt += 1) {
      expect(webhookRetryDelayMs(attempt, 0)).toBeGreaterThan(webhookRetryDelayMs(attempt - 1, 0.999_999));
    }
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(5);
  });

  it('starts a delivery as a child that outlives its parent, once per delivery id', () => {
    expect(webhookDeliveryChildOptions('2b7c3a50-1f1e-4d3a-9c55-0d1f4a6f0e11')).toEqual({
      workflowId: 'webhook-delivery/2b7c3a50-1f1e-4d3a-9c55-0d1f4a6f0e11',
      taskQueue: 'webhooks',
      args: [{ deliveryId: '2b7c3a50-1f1e-4d3a-9c55-0d1f4a6f0e11' }],
      parentClosePolicy: 'ABANDON',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  });
});

describe('signature and payload', () => {
  it('signs `<timestamp>.<raw body>` as sha256=<lowercase hex>, verifiable by an independent receiver', () => {
    const body = '{"id":"e1","type":"envelope.completed","created_at":"2026-01-01T00:00:00.000Z","data":{}}';
    const signature = webhookSignature('whsec_test', '1767225600', body);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(signatureMatches('whsec_test', '1767225600', body, signature)).toBe(true);
    expect(signatureMatches('whsec_other', '1767225600', body, signature)).toBe(false);
    expect(signatureMatches('whsec_test', '1767225601', body, signature)).toBe(false);
    expect(signatureMatches('whsec_test', '1767225600', `${body} `, signature)).toBe(false);
  });

  it('writes the payload as { id, type, created_at, data } in that order', () => {
    const body = webhookPayloadBody({
      data: { envelope_id: 'x', status: 'Completed', external_reference: null },
      created_at: '2026-01-01T00:00:00.000Z',
      type: 'envelope.completed',
      id: 'evt-1',
    } as never);
    expect(body).toBe(
      '{"id":"evt-1","type":"envelope.completed","created_at":"2026-01-01T00:00:00.000Z",' +
        '"data":{"envelope_id":"x","status":"Completed","external_reference":null}}',
    );
  });

  it('knows the specification’s twelve event names, and recipient.corrected, and refuses others', () => {
    expect(WEBHOOK_EVENT_TYPES).toHaveLength(13);
    expect(WEBHOOK_EVENT_TYPES).toContain('recipient.corrected');
    const event = {
      id: 'e',
      type: 'envelope.completed',
      created_at: new Date().toISOString(),
      data: {},
    } as const;
    expect(() => assertWebhookEvent(event)).not.toThrow();
    expect(() => assertWebhookEvent({ ...event, type: 'envelope.exploded' } as never)).toThrow(
      /unknown type/,
    );
    expect(() => assertWebhookEvent({ ...event, created_at: 'yesterday' })).toThrow(/created_at/);
    expect(() => assertWebhookEvent({ ...event, id: '' })).toThrow(/id/);
  });
});
