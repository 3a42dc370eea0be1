// Adds lockfile entries for other platforms' optional native packages (Biome, SWC, ...).
// Our package registry serves only this platform's builds, so `npm install` leaves those entries out, and
// `npm ci` then refuses the lockfile as out of sync. Each added entry carries its os/cpu/libc, so npm
// skips it on every non-matching machine. Run after changing dependencies: `npm run lock:complete`.
import { readFileSync, writeFileSync } from 'node:fs';

interface LockPackage {
  version?: string;
  optional?: boolean;
  optionalDependencies?: Record<string, string>;
  os?: string[];
  cpu?: string[];
  libc?: string[];
}

const OS = [
  'android',
  'darwin',
  'freebsd',
  'linux',
  'netbsd',
  'openbsd',
  'sunos',
  'win32',
  'aix',
  'openharmony',
];
const CPU = [
  'arm64',
  'x64',
  'arm',
  'ia32',
  'ppc64',
  'ppc64le',
  's390x',
  'riscv64',
  'loong64',
  'wasm32',
  'mips64el',
];

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8')) as { packages: Record<string, LockPackage> };
const added: string[] = [];

for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = location.includes('node_modules/')
      ? location.slice(0, location.lastIndexOf('node_modules/'))
      : '';
    const candidates = [
      `${location}/node_modules/${name}`,
      `${base}node_modules/${name}`,
      `node_modules/${name}`,
    ];
    if (candidates.some((candidate) => lock.packages[candidate])) continue;
    const parts = name.split('/').pop()?.split('-') ?? [];
    const os = parts.find((part) => OS.includes(part));
    const cpu = parts.find((part) => CPU.includes(part));
    if (!os || !cpu) continue; // not a platform package: leave it to npm
    const libc = parts.includes('musl')
      ? ['musl']
      : os === 'linux' && parts.includes('gnu')
        ? ['glibc']
        : undefined;
    lock.packages[`node_modules/${name}`] = {
      version: version.replace(/^[\^~=]/, ''),
      cpu: [cpu],
      os: [os],
      ...(libc ? { libc } : {}),
      optional: true,
    };
    added.push(name);
  }
}

lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : a.localeCompare(b))),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(
  added.length > 0 ? `added ${added.length} platform entries: ${added.join(', ')}\n` : 'lockfile complete\n',
);
