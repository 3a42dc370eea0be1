// GET /api/health: 200 when PostgreSQL and Temporal both answer, 503 naming the one that does not. It also
// reports how many envelopes have a parked projection (a transition PostgreSQL refused for good, waiting for
// an operator: `sigil envelope stuck`); that is reported, never a reason for 503, since the service itself
// still works.
import type { FastifyPluginAsync } from 'fastify';
import { countParkedProjections } from '../../services/envelopes/stuck-envelopes.ts';
import type { AppDependencies } from '../dependencies.ts';

const CHECK_TIMEOUT_MS = 3000;

type Check = 'ok' | 'unavailable';

export const healthRoutes: FastifyPluginAsync<AppDependencies> = async (app, deps) => {
  app.get('/api/health', { schema: { hide: true } }, async (request, reply) => {
    let parked: number | null = null;
    const [db, temporal] = await Promise.all([
      probe(async () => {
        parked = await countParkedProjections({ em: deps.orm.em.fork() });
      }),
      probe(() =>
        deps.temporal.connection.workflowService.describeNamespace({ namespace: deps.temporal.namespace }),
      ),
    ]);
    const failing = [
      db.error && `PostgreSQL: ${db.error}`,
      temporal.error && `Temporal: ${temporal.error}`,
    ].filter(Boolean);
    if (failing.length > 0) request.log.warn({ failing }, 'health check failed');
    return reply.code(failing.length === 0 ? 200 : 503).send({
      status: failing.length === 0 ? 'ok' : 'unavailable',
      db: db.status,
      temporal: temporal.status,
      // null when PostgreSQL did not answer.
      projection: { stuck: parked },
      ...(failing.length > 0 ? { message: `Unreachable: ${failing.join('; ')}` } : {}),
    });
  });
};

async function probe(check: () => Promise<unknown>): Promise<{ status: Check; error?: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)),
          CHECK_TIMEOUT_MS,
        );
      }),
    ]);
    return { status: 'ok' };
  } catch (error) {
    return {
      status: 'unavailable',
      error: error instanceof Error ? error.message.split('\n')[0] : String(error),
    };
  } finally {
    clearTimeout(timer);
  }
}
