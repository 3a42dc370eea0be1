// A real SeaweedFS for tests: `weed server` (master, volume server, filer) with its S3 gateway, on free ports of
// 127.0.0.1 in a temporary directory, with one identity whose keys are made here; `stop` ends it and removes the
// directory. The binary comes from provisioning (built once into Sigil's cache; `npm test`'s pretest builds it).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { loadConfig } from '../../config/config.ts';
import type { S3Settings } from '../../config/storage.ts';
import { provisionSeaweedfs } from '../../provisioning/seaweedfs.ts';
import { freePort } from '../../scripts/ports.ts';

export interface RunningSeaweedfs {
  /** The S3 gateway, e.g. http://127.0.0.1:41234. */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The data directory (volumes, filer store); gone after `stop`. */
  dir: string;
  /** Settings for the S3 store on a bucket this creates (path-style, the identity's keys). */
  bucket(name: string): Promise<S3Settings>;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 90_000;
const OUTPUT_LINES = 40;

/** Starts `weed server -s3` and waits until its S3 gateway answers an authenticated request. */
export async function startSeaweedfs(): Promise<RunningSeaweedfs> {
  const { cacheDir } = loadConfig({ SIGIL_ENV: 'test' });
  const weed = await provisionSeaweedfs({ cacheDir });
  const dir = await mkdtemp(join(tmpdir(), 'sigil-seaweedfs-'));
  const accessKeyId = `sigil${randomBytes(6).toString('hex')}`;
  const secretAccessKey = randomBytes(24).toString('hex');
  const s3Config = join(dir, 's3.json');
  await writeFile(
    s3Config,
    JSON.stringify({
      identities: [
        {
          name: 'sigil-tests',
          credentials: [{ accessKey: accessKeyId, secretKey: secretAccessKey }],
          actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
        },
      ],
    }),
  );
  // Every listener on a port chosen here; SeaweedFS's gRPC ports default to port + 10000, so name them too.
  const ports = {
    master: await freePort(),
    masterGrpc: await freePort(),
    volume: await freePort(),
    volumeGrpc: await freePort(),
    filer: await freePort(),
    filerGrpc: await freePort(),
    s3: await freePort(),
    s3Grpc: await freePort(),
  };
  const args = [
    'server',
    `-dir=${dir}`,
    '-ip=127.0.0.1',
    '-ip.bind=127.0.0.1',
    `-master.port=${ports.master}`,
    `-master.port.grpc=${ports.masterGrpc}`,
    '-master.volumeSizeLimitMB=64',
    `-volume.port=${ports.volume}`,
    `-volume.port.grpc=${ports.volumeGrpc}`,
    '-volume.max=8',
    '-filer',
    `-filer.port=${ports.filer}`,
    `-filer.port.grpc=${ports.filerGrpc}`,
    '-s3',
    `-s3.port=${ports.s3}`,
    `-s3.port.grpc=${ports.s3Grpc}`,
    `-s3.config=${s3Config}`,
    // Its Iceberg and Lance catalogs listen on fixed ports by default: off, so two runs never collide.
    '-s3.port.iceberg=0',
    '-s3.port.lance=0',
  ];
  const output: string[] = [];
  const child = spawn(weed.path, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      output.push(...chunk.split('\n').filter(Boolean));
      output.splice(0, Math.max(0, output.length - OUTPUT_LINES));
    });
  }
  const endpoint = `http://127.0.0.1:${ports.s3}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const stop = async () => {
    client.destroy();
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForBucketCreation(client, child, output);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    dir,
    bucket: async (name) => {
      await client.send(new CreateBucketCommand({ Bucket: name }));
      return {
        endpoint,
        bucket: name,
        region: 'us-east-1',
        credentials: { accessKeyId, secretAccessKey },
        forcePathStyle: true,
        serverSideEncryption: null,
        keyPrefix: '',
      };
    },
    stop,
  };
}

/** Creates (and so waits for) a probe bucket: the gateway answers only once the filer and a volume are up. */
async function waitForBucketCreation(client: S3Client, child: ChildProcess, output: string[]): Promise<void> {
  const started = Date.now();
  let last: unknown;
  while (Date.now() - started < READY_TIMEOUT_MS) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`weed server exited (${child.exitCode ?? child.signalCode}):\n${output.join('\n')}`);
    }
    try {
      await client.send(new CreateBucketCommand({ Bucket: 'sigil-ready-probe' }));
      return;
    } catch (error) {
      last = error;
      await new Promise((resume) => setTimeout(resume, 500));
    }
  }
  throw new Error(
    `SeaweedFS's S3 gateway did not answer within ${READY_TIMEOUT_MS / 1000} s (last: ${String(last)}):\n` +
      output.join('\n'),
  );
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
