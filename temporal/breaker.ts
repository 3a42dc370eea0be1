// A breaker in front of every Temporal call made for a request (temporal/deadline.ts). Without it a request that
// needs Temporal while its frontend is down waits the whole TEMPORAL_REQUEST_TIMEOUT_MS (10 s) before its 503: the
// SDK retries a refused gRPC call with back-off for about 20 s and says nothing until then. The breaker asks the
// network instead — a TCP connection to the frontend's address, which a stopped process refuses at once and a
// loaded machine still accepts (the kernel answers, not the process), so a busy Temporal is never taken for a lost
// one:
//   - a call not answered within SUSPECT_AFTER_MS has the address probed; refused (or no answer within
//     PROBE_TIMEOUT_MS) opens the breaker and the call fails now with TemporalUnavailableError;
//   - while open, a call fails at once, and at most every RETRY_PROBE_MS one call probes again: accepted closes the
//     breaker and that call goes ahead.
// One breaker per address, shared by every client of the process. The probe proves the port accepts connections,
// not that Temporal behind it answers: a frontend that accepts and then hangs is bounded by the deadline alone.
import { connect } from 'node:net';

/** How long a call runs before the frontend's address is probed. */
export const SUSPECT_AFTER_MS = 500;
/** How long a probe waits for the connection to be accepted. */
export const PROBE_TIMEOUT_MS = 1_000;
/** While open, how often a call may probe again (the others fail at once). */
export const RETRY_PROBE_MS = 500;

interface Breaker {
  open: boolean;
  lastProbeAt: number;
  probing: Promise<boolean> | undefined;
}

const breakers = new Map<string, Breaker>();

function breakerOf(address: string): Breaker {
  let breaker = breakers.get(address);
  if (!breaker) {
    breaker = { open: false, lastProbeAt: 0, probing: undefined };
    breakers.set(address, breaker);
  }
  return breaker;
}

/** `host:port`, `[ipv6]:port` or a bare host (Temporal's port 7233). */
export function hostAndPort(address: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(address);
  if (bracketed) return { host: bracketed[1] as string, port: Number(bracketed[2] ?? 7233) };
  const colon = address.lastIndexOf(':');
  if (colon === -1) return { host: address, port: 7233 };
  return { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) };
}

/** Whether a TCP connection to `address` is accepted within `timeoutMs`. */
export function acceptsConnections(address: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  const { host, port } = hostAndPort(address);
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let settled = false;
    const done = (accepted: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.destroy();
      resolve(accepted);
    };
    // The verdict waits one turn of the event loop past the timer, so a connection accepted while the loop was
    // busy elsewhere (its event queued behind the timer) still counts.
    const timer = setTimeout(() => setImmediate(() => done(false)), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Probes `address` once for every caller waiting on it, and opens or closes its breaker by the answer. */
function probe(address: string): Promise<boolean> {
  const breaker = breakerOf(address);
  breaker.probing ??= acceptsConnections(address).then((accepted) => {
    breaker.open = !accepted;
    breaker.lastProbeAt = Date.now();
    breaker.probing = undefined;
    return accepted;
  });
  return breaker.probing;
}

/**
 * Before a call: false when the breaker of `address` is open and stays so (the call must fail at once); a call
 * that finds the last probe older than RETRY_PROBE_MS probes again, and goes ahead if the address now accepts.
 */
export async function mayCall(address: string): Promise<boolean> {
  const breaker = breakerOf(address);
  if (!breaker.open) return true;
  if (breaker.probing) return breaker.probing;
  if (Date.now() - breaker.lastProbeAt < RETRY_PROBE_MS) return false;
  return probe(address);
}

/**
 * While a call runs: resolves once `address` has been found unreachable (the breaker is then open); never
 * resolves while it is reachable. `cancel` stops the watch when the call settles.
 */
export function watchCall(address: string): { unreachable: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let cancelled = false;
  const unreachable = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      void probe(address).then((accepted) => {
        if (!accepted && !cancelled) resolve();
      });
    }, SUSPECT_AFTER_MS);
  });
  return {
    unreachable,
    cancel: () => {
      cancelled = true;
      clearTimeout(timer);
    },
  };
}

/** Whether the breaker of `address` is open (for tests and the health answer). */
export function breakerOpen(address: string): boolean {
  return breakers.get(address)?.open ?? false;
}
