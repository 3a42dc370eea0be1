// Graceful shutdown for long-running processes: on SIGINT/SIGTERM run the closers once, in order,
// and exit; a second signal or the grace period forces the exit.
import type { Logger } from 'pino';

export function onShutdown(logger: Logger, graceMs: number, closers: Array<() => Promise<unknown>>): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ graceMs }, 'shutdown took too long: exiting');
      process.exit(1);
    }, graceMs);
    timer.unref();
    for (const close of closers) {
      try {
        await close();
      } catch (error) {
        logger.error({ err: error }, 'error during shutdown');
      }
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

const SUPERVISOR_POLL_MS = 2000;

/**
 * Under `npm start` the children run detached (so Ctrl-C reaches only the supervisor). Should the supervisor
 * die without stopping them, each child notices and stops itself instead of lingering.
 */
export function watchSupervisor(env: NodeJS.ProcessEnv = process.env): void {
  const supervisor = Number(env.SIGIL_SUPERVISOR_PID);
  if (!Number.isInteger(supervisor) || supervisor <= 0) return;
  const timer = setInterval(() => {
    try {
      process.kill(supervisor, 0);
    } catch {
      clearInterval(timer);
      process.kill(process.pid, 'SIGTERM');
    }
  }, SUPERVISOR_POLL_MS);
  timer.unref();
}
