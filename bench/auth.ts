// `npm run bench:auth`: the cost of the accounts' sign-in and of session authentication on real PostgreSQL,
// through HTTP to the API app in production configuration, with the load generator (autocannon) in a process
// of its own (bench/load.ts).
// 1. POST /api/auth/login with the right password at concurrency 1, 4 and 8: sign-ins per second and p50/p99.
//    Each verifies an argon2id hash (parameters printed) and starts a session.
// 2. GET /api/auth/me with a session cookie against GET /api/plans without one (the same transport, no
//    session), and GET /api/plans with the cookie (the session lookup alone), in the same run: requests per
//    second, latency, and the ratio to /api/plans.
// Prints tables; asserts nothing. BENCH_SECONDS (default 10) and BENCH_CONNECTIONS (default 10, part 2) tune it.
import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { addOwner } from '../services/accounts/account-users.ts';
import { createOrganization } from '../services/organizations/create-organization.ts';
import { ARGON2_PARAMETERS, hashPassword } from '../services/security/passwords.ts';
import { startBenchApi } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const LOGIN_CONCURRENCY = [1, 4, 8];
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const LOAD = fileURLToPath(new URL('./load.ts', import.meta.url));

interface Measured {
  name: string;
  connections: number;
  requestsPerSecond: number;
  requests: number;
  p50: number;
  p99: number;
  mean: number;
  errors: number;
  non2xx: number;
  statuses: Record<string, number>;
}

/** One autocannon run in the load process. */
function load(name: string, options: Record<string, unknown>): Promise<Measured> {
  const connections = Number(options.connections);
  say(`${name}: ${SECONDS} s with ${connections} connection${connections === 1 ? '' : 's'}…`);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [LOAD, JSON.stringify({ duration: SECONDS, ...options })],
      { maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stderr}`));
        else
          resolve({
            name,
            connections,
            ...(JSON.parse(stdout.trim().split('\n').at(-1) as string) as Omit<
              Measured,
              'name' | 'connections'
            >),
          });
      },
    );
  });
}

function table(results: Measured[], base?: Measured) {
  const header = [
    'route'.padEnd(44),
    'conn'.padStart(5),
    'req/s'.padStart(9),
    'p50'.padStart(10),
    'p99'.padStart(10),
  ];
  if (base) header.push('vs /api/plans'.padStart(14));
  header.push('errors'.padStart(7));
  process.stdout.write(`\n${header.join(' ')}\n`);
  for (const r of results) {
    const row = [
      r.name.padEnd(44),
      String(r.connections).padStart(5),
      r.requestsPerSecond.toFixed(1).padStart(9),
      `${r.p50.toFixed(1)} ms`.padStart(10),
      `${r.p99.toFixed(1)} ms`.padStart(10),
    ];
    if (base) row.push((r.requestsPerSecond / base.requestsPerSecond).toFixed(3).padStart(14));
    row.push(String(r.errors + r.non2xx).padStart(7));
    process.stdout.write(`${row.join(' ')}\n`);
  }
}

const bench = await startBenchApi(say);
try {
  const { app, infrastructure } = bench;
  const email = `bench-${Date.now()}@example.test`;
  const password = 'bench password 12345';
  const em = infrastructure.orm.em.fork();
  const organization = await createOrganization({ em }, { name: 'Bench accounts', plan: 'Business' });
  await addOwner(
    { em },
    {
      organization,
      email,
      fullName: 'Bench Owner',
      passwordHash: await hashPassword(password),
      language: 'en',
      emailVerified: true,
    },
  );
  await em.flush();

  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  // Mutations must come from a page of this server: the request's own origin.
  const loginRequest = {
    url: `${url}/api/auth/login`,
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, password }),
  };
  const first = await fetch(loginRequest.url, loginRequest);
  if (first.status !== 200) throw new Error(`login: ${first.status} ${await first.text()}`);
  const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] as string;

  const logins: Measured[] = [];
  for (const connections of LOGIN_CONCURRENCY) {
    logins.push(await load('POST /api/auth/login (right password)', { ...loginRequest, connections }));
  }
  const plans = await load('GET /api/plans (no session)', {
    url: `${url}/api/plans`,
    connections: CONNECTIONS,
  });
  const plansWithSession = await load('GET /api/plans (session cookie: lookup only)', {
    url: `${url}/api/plans`,
    headers: { cookie },
    connections: CONNECTIONS,
  });
  const me = await load('GET /api/auth/me (session cookie)', {
    url: `${url}/api/auth/me`,
    headers: { cookie },
    connections: CONNECTIONS,
  });

  const p = ARGON2_PARAMETERS;
  process.stdout.write(
    `\nargon2id: m=${p.memory} KiB, t=${p.passes}, p=${p.parallelism}, tag ${p.tagLength} bytes` +
      ` (node:crypto argon2, libuv thread pool of ${process.env.UV_THREADPOOL_SIZE ?? 4}, ${availableParallelism()} CPUs)\n`,
  );
  table(logins);
  table([plans, plansWithSession, me], plans);
  // With the server saturated, 1 / throughput is the server's time per request.
  const extra = (r: Measured) => (1000 / r.requestsPerSecond - 1000 / plans.requestsPerSecond).toFixed(2);
  process.stdout.write(
    `\nserver time per request over GET /api/plans (1 / throughput at ${CONNECTIONS} connections): ` +
      `session lookup +${extra(plansWithSession)} ms, GET /api/auth/me +${extra(me)} ms\n` +
      `(${SECONDS} s each; server and load generator on one machine, the load generator in its own process)\n`,
  );
  const failed = [...logins, plans, plansWithSession, me].filter((r) => r.errors + r.non2xx > 0);
  for (const r of failed)
    process.stdout.write(`!! ${r.name} (${r.connections}): ${JSON.stringify(r.statuses)}\n`);
} finally {
  await bench.close();
}
