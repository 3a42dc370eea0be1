// Makes a PKCS#12 sealing certificate with the openssl command: a root CA and a seal certificate it issues,
// bundled with the key and the chain. For trying the production configuration (SEALING_PKCS12_PATH) on a
// machine without a real certificate, and for the tests and benchmarks that run Sigil in production mode —
// never for real documents: no validator trusts this root.
//   node scripts/sealing/make-pkcs12.ts --out DIR [--passphrase TEXT]
// Writes DIR/seal.p12 and DIR/ca.crt.pem, and prints the two settings to use.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export interface MadePkcs12 {
  path: string;
  passphrase: string;
  caCertificatePath: string;
}

/** Makes (or reuses, when already there) DIR/seal.p12 with its CA. Synchronous: config loaders call it. */
export function makeSealPkcs12(directory: string, passphrase: string): MadePkcs12 {
  const dir = resolve(directory);
  const made = { path: join(dir, 'seal.p12'), passphrase, caCertificatePath: join(dir, 'ca.crt.pem') };
  if (existsSync(made.path) && existsSync(made.caCertificatePath)) return made;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  writeFileSync(
    join(dir, 'seal.ext'),
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature,nonRepudiation',
      'subjectKeyIdentifier=hash',
      'authorityKeyIdentifier=keyid',
      '',
    ].join('\n'),
  );
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key.pem',
    '-out',
    'ca.crt.pem',
    '-days',
    '3650',
    '-subj',
    '/O=Sigil (local test)/CN=Sigil Local Test Root CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE,pathlen:0',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'seal.key.pem',
    '-out',
    'seal.csr.pem',
    '-subj',
    '/O=Sigil (local test)/CN=Sigil Local Test Seal',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'seal.csr.pem',
    '-CA',
    'ca.crt.pem',
    '-CAkey',
    'ca.key.pem',
    '-CAcreateserial',
    '-out',
    'seal.crt.pem',
    '-days',
    '1095',
    '-extfile',
    'seal.ext',
  );
  openssl(
    'pkcs12',
    '-export',
    '-inkey',
    'seal.key.pem',
    '-in',
    'seal.crt.pem',
    '-certfile',
    'ca.crt.pem',
    '-name',
    'Sigil seal',
    '-out',
    'seal.p12',
    '-passout',
    `pass:${passphrase}`,
  );
  return made;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { out: { type: 'string' }, passphrase: { type: 'string', default: 'sigil-local-test' } },
  });
  if (!values.out) {
    process.stderr.write('Usage: node scripts/sealing/make-pkcs12.ts --out DIR [--passphrase TEXT]\n');
    process.exit(64);
  }
  const made = makeSealPkcs12(values.out, values.passphrase);
  process.stdout.write(
    `SEALING_PKCS12_PATH=${made.path}\nSEALING_PKCS12_PASSPHRASE=${made.passphrase}\n` +
      `# root to trust when validating: ${made.caCertificatePath}\n`,
  );
}
