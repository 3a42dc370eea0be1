// Runs the two independent PDF signature validators (poppler's pdfsig and pyHanko, provisioned by
// provisioning/pdf-validators.ts) on a PDF and parses what they print into plain values a test can
// assert on. The parsers follow the text of pdfsig 22.12 and pyHanko 0.38 (CLI 0.6) `--pretty-print`: output
// they cannot read is an error showing that output, never a silent "invalid".
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pdfValidatorPaths } from '../../provisioning/pdf-validators.ts';

const PDFSIG_TIMEOUT_MS = 60_000;
const PYHANKO_TIMEOUT_MS = 180_000;

/** A PDF's bytes, or the path of a PDF file. */
export type PdfInput = Uint8Array | string;

export interface PdfsigSignature {
  /** "Signature Field Name". */
  field: string;
  /** "Signer Certificate Common Name". */
  signerCommonName: string;
  /** "Signature Type": the /SubFilter, e.g. ETSI.CAdES.detached. */
  subFilter: string;
  /** "Signature Validation" is "Signature is Valid." (the digest over the byte range and the CMS signature). */
  signatureValid: boolean;
  /** The "Signature Validation" text itself, e.g. "Digest Mismatch." */
  signatureValidation: string;
  /** "Total document signed" (true) or "Not total document signed" (false). */
  totalDocumentSigned: boolean;
  /** "Signing Time", as pdfsig prints it (the signer's claim, e.g. "Nov 27 2026 18:48:48"). */
  signingTime: string | null;
  /** "Signing Hash Algorithm", e.g. SHA-256. */
  hashAlgorithm: string | null;
  /** "Signed Ranges": [start, end] byte offsets. */
  signedRanges: Array<[number, number]>;
  /** "Certificate Validation", only with `validateCertificates`. */
  certificateValidation: string | null;
  /** This signature's block of the output. */
  raw: string;
}

export interface PdfsigResult {
  /** In the order pdfsig numbers them (#1 first); empty when the file has none. */
  signatures: PdfsigSignature[];
  /** stdout. */
  raw: string;
  stderr: string;
  exitCode: number;
}

export interface PyhankoSignature {
  /** The signature field's name. */
  field: string;
  /** "The signature is judged VALID." */
  valid: boolean;
  /** "The signature is cryptographically sound.": the digest over the byte range and the CMS signature hold. */
  intact: boolean;
  /** "The signature covers the entire file." */
  coversEntireFile: boolean;
  /**
   * What changed after the signed revision, as pyHanko's incremental update analysis judges it: nothing
   * (covers the entire file), only signature maintenance (DSS, document timestamps), form filling, or
   * changes that "may be illegitimate"; `not-analysed` when the analysis was skipped.
   */
  modifications: 'none' | 'signature-maintenance' | 'form-filling' | 'illegitimate' | 'not-analysed';
  /** "The signer's certificate is trusted / untrusted / revoked." */
  signerTrust: 'trusted' | 'untrusted' | 'revoked';
  /** "Certificate subject" of the signer, in pyHanko's words (e.g. "Common Name: Test Seal"). */
  signerSubject: string | null;
  /** The signature timestamp token's time (ISO 8601) when there is one. */
  signatureTimestamp: string | null;
  /** "The timestamp token is cryptographically sound." and "The TSA certificate is trusted." */
  timestampIntact: boolean;
  timestampTrusted: boolean;
  /** The message when pyHanko could not validate this signature at all (then every judgment above is false). */
  error: string | null;
  /** This signature's block of the output. */
  raw: string;
}

export interface PyhankoResult {
  /** Every signature is VALID (and there is at least one, and pyHanko exited 0). */
  valid: boolean;
  /** Every signature is cryptographically sound (and there is at least one). */
  intact: boolean;
  /** The last signature covers the entire file. */
  coversEntireFile: boolean;
  /** Every signature has a signature timestamp (and there is at least one). */
  hasSignatureTimestamp: boolean;
  /** The regular signatures (document timestamps are not listed), in file order. */
  signatures: PyhankoSignature[];
  /** stdout. */
  raw: string;
  /** pyHanko's log lines and its final "Error: …". */
  stderr: string;
  /** 0 when every signature is valid, 1 otherwise. */
  exitCode: number;
}

export interface PyhankoValidateOptions {
  /** PEM or DER certificates that replace the system's trust store: the signer's CA and the TSA's CA. */
  trustRootPaths: string[];
  /**
   * Long-term validation (`pyhanko sign adesverify`): revocation data is required for every certificate and
   * comes from the file's DSS. Without it (`pyhanko sign validate --no-revocation-check`) the signature,
   * integrity, trust path, timestamp and later modifications are checked, and revocation is not (the tests
   * run offline).
   */
  ltv?: boolean;
  /** More certificates for path building (`--other-certs`). */
  otherCertificatePaths?: string[];
}

let paths: Promise<{ pdfsig: string; pyhanko: string }> | undefined;

/** The provisioned executables, looked up once per test file; throws naming the provision command. */
export function validatorPaths(): Promise<{ pdfsig: string; pyhanko: string }> {
  paths ??= pdfValidatorPaths();
  return paths;
}

/** `pdfsig -nocert <pdf>` (with `validateCertificates`: `pdfsig -no-ocsp <pdf>`, NSS's own trust store). */
export async function runPdfsig(
  pdf: PdfInput,
  options: { validateCertificates?: boolean } = {},
): Promise<PdfsigResult> {
  const { pdfsig } = await validatorPaths();
  return withPdfFile(pdf, async (file, dir) => {
    const result = await runTool(
      pdfsig,
      [options.validateCertificates ? '-no-ocsp' : '-nocert', file],
      dir,
      PDFSIG_TIMEOUT_MS,
    );
    return parsePdfsig(result);
  });
}

/** `pyhanko sign validate --pretty-print` (or `adesverify` with `ltv`) with only the given trust roots. */
export async function runPyhankoValidate(
  pdf: PdfInput,
  options: PyhankoValidateOptions,
): Promise<PyhankoResult> {
  if (options.trustRootPaths.length === 0)
    throw new Error('runPyhankoValidate: give at least one trust root');
  const { pyhanko } = await validatorPaths();
  return withPdfFile(pdf, async (file, dir) => {
    const args = [
      '--no-plugins',
      'sign',
      options.ltv ? 'adesverify' : 'validate',
      '--pretty-print',
      ...options.trustRootPaths.flatMap((path) => ['--trust', resolve(path)]),
      '--trust-replace',
      ...(options.otherCertificatePaths ?? []).flatMap((path) => ['--other-certs', resolve(path)]),
      ...(options.ltv ? [] : ['--no-revocation-check']),
      file,
    ];
    // Run in the temporary directory: pyHanko reads a pyhanko.yml from its working directory.
    const result = await runTool(pyhanko, args, dir, PYHANKO_TIMEOUT_MS);
    return parsePyhanko(result, `pyhanko ${args.join(' ')}`);
  });
}

// ---------------------------------------------------------------------------------------------------------
// pdfsig's output
// ---------------------------------------------------------------------------------------------------------

/**
 * pdfsig prints, per signature:
 *   Signature #1:
 *     - Signature Field Name: Seal
 *     - Signer Certificate Common Name: …
 *     - Signature Type: ETSI.CAdES.detached
 *     - Signed Ranges: [0 - 1050], [25628 - 26267]
 *     - Total document signed                       (or: Not total document signed)
 *     - Signature Validation: Signature is Valid.   (or: Digest Mismatch., …)
 * and "File '…' does not contain any signatures" with exit code 2 when there are none.
 */
export function parsePdfsig(result: ToolResult): PdfsigResult {
  const { stdout, stderr, exitCode } = result;
  const fail = (problem: string) =>
    new Error(`pdfsig: ${problem} (exit code ${exitCode})\nstdout:\n${stdout}\nstderr:\n${stderr}`);
  if (/does not contain any signatures/.test(stdout + stderr)) {
    return { signatures: [], raw: stdout, stderr, exitCode };
  }
  if (exitCode !== 0) throw fail('failed');
  const blocks = stdout.split(/^Signature #\d+:\s*$/m).slice(1);
  if (blocks.length === 0) throw fail('no "Signature #n:" in its output');
  const signatures = blocks.map((block): PdfsigSignature => {
    const entries = new Map<string, string>();
    const flags: string[] = [];
    for (const line of block.split('\n')) {
      const item = /^\s+- (.*?)\s*$/.exec(line)?.[1];
      if (!item) continue;
      const colon = item.indexOf(': ');
      if (colon === -1) flags.push(item);
      else entries.set(item.slice(0, colon), item.slice(colon + 2));
    }
    const validation = entries.get('Signature Validation');
    const total = flags.includes('Total document signed');
    if (validation === undefined) throw fail('a signature without "Signature Validation"');
    if (!total && !flags.includes('Not total document signed')) {
      throw fail('a signature without "Total document signed" or "Not total document signed"');
    }
    const ranges = [...(entries.get('Signed Ranges') ?? '').matchAll(/\[(\d+) - (\d+)\]/g)].map(
      (match) => [Number(match[1]), Number(match[2])] as [number, number],
    );
    return {
      field: entries.get('Signature Field Name') ?? '',
      signerCommonName: entries.get('Signer Certificate Common Name') ?? '',
      subFilter: entries.get('Signature Type') ?? '',
      signatureValid: validation === 'Signature is Valid.',
      signatureValidation: validation,
      totalDocumentSigned: total,
      signingTime: entries.get('Signing Time') ?? null,
      hashAlgorithm: entries.get('Signing Hash Algorithm') ?? null,
      signedRanges: ranges,
      certificateValidation: entries.get('Certificate Validation') ?? null,
      raw: block.trim(),
    };
  });
  return { signatures, raw: stdout, stderr, exitCode };
}

// ---------------------------------------------------------------------------------------------------------
// pyHanko's output
// ---------------------------------------------------------------------------------------------------------

const PYHANKO_FIELD_HEADER = /^=+\nField \d+: (.*)\n=+$/gm;
const PYHANKO_ERROR = 'An error occurred while validating this signature: ';

/**
 * `--pretty-print` prints, per regular signature, a header ("Field 1: Seal" between lines of "=") and the
 * sections "Signer info", "Integrity", "Signing time", "Modifications" and "Bottom line" (each a title over a
 * line of "-"), or one line "An error occurred while validating this signature: …". Exit code 1 and
 * "Error: Validation failed" on stderr when a signature is not valid; 2 for a usage error.
 */
export function parsePyhanko(result: ToolResult, command = 'pyhanko'): PyhankoResult {
  const { stdout, stderr, exitCode } = result;
  const fail = (problem: string) =>
    new Error(`${command}: ${problem} (exit code ${exitCode})\nstdout:\n${stdout}\nstderr:\n${stderr}`);
  if (exitCode !== 0 && exitCode !== 1) throw fail('failed');
  const headers = [...stdout.matchAll(PYHANKO_FIELD_HEADER)];
  const signatures = headers.map((header, index): PyhankoSignature => {
    const start = (header.index ?? 0) + header[0].length;
    const end = headers[index + 1]?.index ?? stdout.length;
    const block = stdout.slice(start, end).trim();
    const field = header[1] ?? '';
    const error = block.startsWith(PYHANKO_ERROR) ? block.slice(PYHANKO_ERROR.length).trim() : null;
    if (error !== null) {
      return {
        field,
        valid: false,
        intact: false,
        coversEntireFile: false,
        modifications: 'not-analysed',
        signerTrust: 'untrusted',
        signerSubject: null,
        signatureTimestamp: null,
        timestampIntact: false,
        timestampTrusted: false,
        error,
        raw: block,
      };
    }
    const judged = /^The signature is judged (VALID|INVALID)\.$/m.exec(block)?.[1];
    const soundness = /^The signature is cryptographically (sound|unsound)\.$/m.exec(block)?.[1];
    const trust = /^The signer's certificate is (trusted|untrusted|revoked)\.$/m.exec(block)?.[1];
    const coverage = section(block, 'Modifications');
    if (!judged || !soundness || !trust || coverage === undefined) {
      throw fail(`cannot read the result for the field ${field}`);
    }
    return {
      field,
      valid: judged === 'VALID',
      intact: soundness === 'sound',
      coversEntireFile: /^The signature covers the entire file\.$/m.test(coverage),
      modifications: modificationsOf(coverage, () =>
        fail(`cannot read the modifications of the field ${field}`),
      ),
      signerTrust: trust as PyhankoSignature['signerTrust'],
      signerSubject: /^Certificate subject: "(.*)"$/m.exec(block)?.[1] ?? null,
      signatureTimestamp: /^Signature timestamp token: (\S+)$/m.exec(block)?.[1] ?? null,
      timestampIntact: /^The timestamp token is cryptographically sound\.$/m.test(block),
      timestampTrusted: /^The TSA certificate is trusted\.$/m.test(block),
      error: null,
      raw: block,
    };
  });
  if (signatures.length === 0 && exitCode === 1 && !/Validation failed/.test(stderr)) {
    // Not a verdict: pyHanko could not read the file (or the trust roots) at all.
    throw fail('no signature was validated');
  }
  const some = signatures.length > 0;
  return {
    valid: some && exitCode === 0 && signatures.every((signature) => signature.valid),
    intact: some && signatures.every((signature) => signature.intact),
    coversEntireFile: signatures.at(-1)?.coversEntireFile ?? false,
    hasSignatureTimestamp: some && signatures.every((signature) => signature.signatureTimestamp !== null),
    signatures,
    raw: stdout,
    stderr,
    exitCode,
  };
}

/** The body of the section `title` (a title line over a line of dashes) up to the next section. */
function section(block: string, title: string): string | undefined {
  const lines = block.split('\n');
  const start = lines.findIndex((line, index) => line === title && /^-+$/.test(lines[index + 1] ?? ''));
  if (start === -1) return undefined;
  const body: string[] = [];
  for (let index = start + 2; index < lines.length; index++) {
    if (/^-+$/.test(lines[index + 1] ?? '') && lines[index] !== '') break;
    body.push(lines[index] ?? '');
  }
  return body.join('\n').trim();
}

function modificationsOf(text: string, fail: () => Error): PyhankoSignature['modifications'] {
  if (/^The signature covers the entire file\./m.test(text)) return 'none';
  if (/^Incremental update analysis was skipped/m.test(text)) return 'not-analysed';
  if (/^All modifications relate to signature maintenance/m.test(text)) return 'signature-maintenance';
  if (/^All modifications relate to signing and form filling/m.test(text)) return 'form-filling';
  if (/^Some modifications may be illegitimate/m.test(text)) return 'illegitimate';
  throw fail();
}

// ---------------------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------------------

export interface ToolResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Runs `fn` with the PDF as a file (bytes are written to a temporary directory, removed afterwards). */
async function withPdfFile<T>(pdf: PdfInput, fn: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'sigil-pdf-validate-'));
  try {
    let file: string;
    if (typeof pdf === 'string') file = resolve(pdf);
    else {
      file = join(dir, 'document.pdf');
      await writeFile(file, pdf);
    }
    return await fn(file, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs a validator without a shell; only a failure to start it or a timeout is an error. */
function runTool(command: string, args: string[], cwd: string, timeoutMs: number): Promise<ToolResult> {
  return new Promise((done, reject) => {
    execFile(
      command,
      args,
      { cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (!error) {
          done({ stdout, stderr, exitCode: 0 });
          return;
        }
        const code = (error as NodeJS.ErrnoException & { code?: unknown }).code;
        if (typeof code === 'number' && !error.killed) {
          done({ stdout, stderr, exitCode: code });
          return;
        }
        reject(
          new Error(
            `${command} ${args.join(' ')}: ${error.killed ? `killed after ${timeoutMs} ms` : error.message}\n` +
              `stdout:\n${stdout}\nstderr:\n${stderr}`,
          ),
        );
      },
    );
  });
}
