// `npm run bench:object-store`: the object store's share of an envelope. A real SeaweedFS 4.53 (`weed server`
// with its S3 gateway, test/support/seaweedfs.ts) behind Sigil's S3 store (storage/s3-object-store.ts): for each of
// BENCH_ENVELOPES (default 200) envelopes, BENCH_FILES (default 4) new files of BENCH_FILE_KIB (default 22) KiB
// each — what `npm run bench:scale` counted per envelope (4 files, 86 KiB) — put, then read back whole (the port
// checks SHA-256 on the way), BENCH_IN_FLIGHT (default 16) envelopes at a time. Prints SeaweedFS's CPU per
// envelope (its processes from /proc) and the S3 client's (this process: the part of the store's cost that
// lands in Sigil's own processes), puts and gets per second, and put/get p50/p99. Asserts nothing.
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { readAll } from '../storage/object-store.ts';
import { S3ObjectStore } from '../storage/s3-object-store.ts';
import { startSeaweedfs } from '../test/support/seaweedfs.ts';
import { percentile, pool } from './figures.ts';
import { allProcesses, descendants } from './process-cpu.ts';

const ENVELOPES = Number(process.env.BENCH_ENVELOPES ?? 200);
const FILES = Number(process.env.BENCH_FILES ?? 4);
const FILE_KIB = Number(process.env.BENCH_FILE_KIB ?? 22);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 16);
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);

const weedCpu = async () =>
  descendants(await allProcesses(), [process.pid])
    .filter((p) => p.name === 'weed')
    .reduce((sum, p) => sum + p.cpu + p.reaped, 0);
const ownCpu = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const seaweedfs = await startSeaweedfs();
try {
  const store = new S3ObjectStore(await seaweedfs.bucket('sigil-bench'));
  say(`SeaweedFS at ${seaweedfs.endpoint}; warming up…`);
  for (let i = 0; i < 8; i++)
    await readAll(await store.get((await store.put(randomBytes(FILE_KIB * 1024))).key));
  const puts: number[] = [];
  const gets: number[] = [];
  const weedBefore = await weedCpu();
  const ownBefore = ownCpu();
  const t0 = Date.now();
  await pool(ENVELOPES, IN_FLIGHT, async () => {
    for (let f = 0; f < FILES; f++) {
      const bytes = randomBytes(FILE_KIB * 1024);
      let started = Date.now();
      const { key } = await store.put(bytes);
      puts.push(Date.now() - started);
      started = Date.now();
      const back = await readAll(await store.get(key));
      gets.push(Date.now() - started);
      if (back.length !== bytes.length) throw new Error(`object ${key} came back with ${back.length} bytes`);
    }
  });
  const seconds = (Date.now() - t0) / 1000;
  const weed = (await weedCpu()) - weedBefore;
  const own = ownCpu() - ownBefore;
  process.stdout.write(
    `\n${ENVELOPES} envelopes × ${FILES} files of ${FILE_KIB} KiB, put then read back, ${IN_FLIGHT} in flight; ` +
      `load average ${(loadavg()[0] ?? 0).toFixed(2)}\n` +
      `  SeaweedFS CPU per envelope:           ${((weed / ENVELOPES) * 1000).toFixed(1)} ms\n` +
      `  S3 client CPU per envelope (Sigil's): ${((own / ENVELOPES) * 1000).toFixed(1)} ms\n` +
      `  puts and gets per second:             ${((puts.length + gets.length) / seconds).toFixed(0)}\n` +
      `  put p50 / p99:                        ${percentile(puts, 50)} / ${percentile(puts, 99)} ms\n` +
      `  get p50 / p99:                        ${percentile(gets, 50)} / ${percentile(gets, 99)} ms\n`,
  );
} finally {
  await seaweedfs.stop();
}
