// The breaker in front of every Temporal call made for a request (temporal/breaker.ts, temporal/deadline.ts):
// a client whose frontend goes away answers within about a second instead of the whole deadline, at once while it
// stays away, and works again by itself once the frontend is back. The frontend is the test's Temporal dev server
// behind a TCP proxy the test stops and starts.
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { acceptsConnections, breakerOpen, hostAndPort, SUSPECT_AFTER_MS } from '../../temporal/breaker.ts';
import { TemporalUnavailableError, withTemporalDeadline } from '../../temporal/deadline.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

/** The deadline of these calls: far longer than what the breaker answers in. */
const DEADLINE_MS = 10_000;

let proxy: TcpProxy;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  proxy = await startTcpProxy(inject('temporalAddress'));
  connection = await Connection.connect({ address: proxy.address });
  client = new Client({ connection, namespace: inject('namespace') });
});
afterAll(async () => {
  await proxy?.start().catch(() => {});
  // The SDK retries calls refused during the outage for up to ~20 s; with the proxy back they succeed, and the
  // connection can close without a retry timer throwing on a closed channel.
  await sleep(1_000);
  await connection?.close();
  await proxy?.close();
});

const systemInfo = () =>
  withTemporalDeadline(client, DEADLINE_MS, 'reading the system info', () =>
    client.workflowService.getSystemInfo({}),
  );

async function timed(call: () => Promise<unknown>): Promise<{ error: unknown; elapsedMs: number }> {
  const started = Date.now();
  try {
    await call();
    return { error: undefined, elapsedMs: Date.now() - started };
  } catch (error) {
    return { error, elapsedMs: Date.now() - started };
  }
}

describe('the Temporal breaker', () => {
  it('reads addresses as host and port, with Temporal’s port by default', () => {
    expect(hostAndPort('127.0.0.1:7233')).toEqual({ host: '127.0.0.1', port: 7233 });
    expect(hostAndPort('temporal.internal')).toEqual({ host: 'temporal.internal', port: 7233 });
    expect(hostAndPort('[::1]:7234')).toEqual({ host: '::1', port: 7234 });
  });

  it('answers within about a second once the frontend is gone, at once while it stays so, and recovers by itself', async () => {
    expect((await timed(systemInfo)).error).toBeUndefined();
    expect(breakerOpen(proxy.address)).toBe(false);

    await proxy.stop();
    expect(await acceptsConnections(proxy.address)).toBe(false);
    const first = await timed(systemInfo);
    expect(first.error).toBeInstanceOf(TemporalUnavailableError);
    expect(String(first.error)).toMatch(/not reachable at 127\.0\.0\.1:\d+ \(reading the system info\)/);
    // The call is suspected after SUSPECT_AFTER_MS and the refused probe answers it: nowhere near the deadline.
    expect(first.elapsedMs).toBeGreaterThanOrEqual(SUSPECT_AFTER_MS - 50);
    expect(first.elapsedMs).toBeLessThan(1_500);
    expect(breakerOpen(proxy.address)).toBe(true);
    const during = await Promise.all(Array.from({ length: 20 }, () => timed(systemInfo)));
    for (const call of during) {
      expect(call.error).toBeInstanceOf(TemporalUnavailableError);
      expect(call.elapsedMs).toBeLessThan(200);
    }

    await proxy.start();
    const deadline = Date.now() + 20_000;
    let after = await timed(systemInfo);
    while (after.error && Date.now() < deadline) {
      await sleep(250);
      after = await timed(systemInfo);
    }
    expect(after.error).toBeUndefined();
    expect(breakerOpen(proxy.address)).toBe(false);
  });

  it('leaves a slow call on a reachable frontend to its deadline', async () => {
    // An operation that takes longer than SUSPECT_AFTER_MS on a frontend that accepts connections: probed, found
    // reachable, and left to finish.
    const slow = await timed(() =>
      withTemporalDeadline(client, DEADLINE_MS, 'a slow call', async () => {
        await sleep(SUSPECT_AFTER_MS + 700);
        return client.workflowService.getSystemInfo({});
      }),
    );
    expect(slow.error).toBeUndefined();
    expect(slow.elapsedMs).toBeGreaterThanOrEqual(SUSPECT_AFTER_MS + 700);
    expect(breakerOpen(proxy.address)).toBe(false);
  });
});
