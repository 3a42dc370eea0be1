// The load generator of `npm run bench:api` and `bench:auth`, in a process of its own so that its work does not
// share the measured server's event loop: runs autocannon with the options given as JSON in argv[2] and prints
// one JSON line with what the benchmarks report.
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2] ?? '{}') as autocannon.Options;
const result = await autocannon(options);
const statuses = result.statusCodeStats as unknown as Record<string, { count: number }> | undefined;
process.stdout.write(
  `${JSON.stringify({
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.mean,
    errors: result.errors,
    non2xx: result.non2xx,
    statuses: Object.fromEntries(Object.entries(statuses ?? {}).map(([code, stat]) => [code, stat.count])),
  })}\n`,
);
