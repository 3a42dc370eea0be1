// Every wait on Temporal from a request is bounded. Without a deadline a call hangs for as long as the server
// keeps it: an Update waits for a worker that may be down, and the SDK retries an unreachable server for about
// 20 s. `withTemporalDeadline` gives all the gRPC calls one operation makes a common deadline (the SDK's
// `client.withDeadline`) and also stops waiting itself at that moment (the SDK's retry back-off may sleep past
// a deadline), so the caller gets `TemporalUnavailableError` within the time it allowed.
//
// And a breaker (temporal/breaker.ts) answers within about a second when the frontend cannot be reached at all,
// and at once while it stays so, where the deadline alone would make every such request wait its whole length.
//
// What an expired deadline means depends on the call: a workflow start either happened or not, and starting
// again under the same workflow id is harmless; an Update may have been admitted by the server and can still
// be applied when a worker picks it up. The callers say so in their answer (services/envelopes/).
import {
  type Client,
  isGrpcServiceError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { mayCall, watchCall } from './breaker.ts';

/** The default bound of one Temporal operation made for a request (TEMPORAL_REQUEST_TIMEOUT_MS). */
export const DEFAULT_TEMPORAL_REQUEST_TIMEOUT_MS = 10_000;

/** The bound configured for a request's Temporal calls (TEMPORAL_REQUEST_TIMEOUT_MS), or the default. */
export function temporalTimeoutMs(config?: { temporal?: { requestTimeoutMs?: number } }): number {
  return config?.temporal?.requestTimeoutMs ?? DEFAULT_TEMPORAL_REQUEST_TIMEOUT_MS;
}

/**
 * Temporal did not answer in time, or could not be reached. Either way the caller cannot tell whether the
 * server received what it sent.
 */
export class TemporalUnavailableError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'TemporalUnavailableError';
  }
}

// gRPC status codes (grpc-js `status`): the server could not be reached, or did not answer in time.
const DEADLINE_EXCEEDED = 4;
const UNAVAILABLE = 14;

/**
 * Whether `error` (or one of its causes) says Temporal is unreachable or did not answer in time, as opposed
 * to an answer (a refused Update, a workflow that exists already, a bad request).
 */
export function isTemporalUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof TemporalUnavailableError) return true;
    if (current instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
    if (isGrpcServiceError(current) && (current.code === UNAVAILABLE || current.code === DEADLINE_EXCEEDED)) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Runs `operation` (one or more calls on `client`) with a deadline `timeoutMs` from now. Resolves with its
 * result, or rejects with `TemporalUnavailableError` once the deadline passes or when Temporal is
 * unreachable; any other error (an answer from Temporal) is rethrown as it is.
 */
export async function withTemporalDeadline<T>(
  client: Pick<Client, 'withDeadline'>,
  timeoutMs: number,
  what: string,
  operation: () => Promise<T>,
): Promise<T> {
  const seconds = `${Math.round(timeoutMs / 100) / 10} s`;
  const expired = (cause?: unknown) =>
    new TemporalUnavailableError(`Temporal did not answer within ${seconds} (${what}).`, cause);
  const address = addressOf(client);
  const unreachable = () =>
    new TemporalUnavailableError(`Temporal is not reachable at ${address} (${what}).`);
  if (address && !(await mayCall(address))) throw unreachable();
  let timer: NodeJS.Timeout | undefined;
  const watch = address ? watchCall(address) : undefined;
  const work = client.withDeadline(Date.now() + timeoutMs, operation);
  // The race may be lost by `work`; its later rejection is expected and must not count as unhandled.
  work.catch(() => {});
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(expired()), timeoutMs);
      }),
      ...(watch
        ? [
            watch.unreachable.then(() => {
              throw unreachable();
            }),
          ]
        : []),
    ]);
  } catch (error) {
    if (error instanceof TemporalUnavailableError) throw error;
    if (!isTemporalUnavailable(error)) throw error;
    throw grpcCodeOf(error) === UNAVAILABLE
      ? new TemporalUnavailableError(`Temporal is not reachable (${what}).`, error)
      : expired(error);
  } finally {
    clearTimeout(timer);
    watch?.cancel();
  }
}

/** The frontend's address of a client made on a Connection (test doubles have none: no breaker). */
function addressOf(client: Pick<Client, 'withDeadline'>): string | undefined {
  const address = (client as { connection?: { options?: { address?: unknown } } }).connection?.options
    ?.address;
  return typeof address === 'string' ? address : undefined;
}

function grpcCodeOf(error: unknown): number | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (isGrpcServiceError(current)) return current.code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
