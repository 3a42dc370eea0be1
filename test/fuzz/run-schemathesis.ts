// Runs the Schemathesis CLI (`st run`) against an OpenAPI document served by a running app, and reads its two
// reports back: the JSON run report for the figures (operations, generated cases, failures, errors) and the
// JUnit report for each failing operation's findings, every one with the check that failed and a curl command
// that reproduces it. The caller decides what counts as passing; findings() lists everything wrong.
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The hooks file that puts real ids into path parameters (see its docstring). */
export const HOOKS_FILE = new URL('./hooks.py', import.meta.url).pathname;
/** Schemathesis' configuration: what reports may show, and each check narrowed for an operation, with why. */
export const CONFIG_FILE = new URL('./schemathesis.toml', import.meta.url).pathname;

/**
 * Values that reach one resource: path parameters, headers it needs (the sandbox header) and top-level fields
 * of a JSON body (a real `templateId`).
 */
export interface ResourceSet {
  path?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Record<string, unknown>;
}

/** Per operation label ("GET /api/v1/envelopes/{id}"), the resource sets the hooks choose from. */
export type Resources = Record<string, ResourceSet[]>;

export interface SchemathesisRun {
  /** The `st` executable. */
  st: string;
  /** Where the document is served, e.g. http://127.0.0.1:4000/api/openapi/v1/openapi.json */
  schemaUrl: string;
  /** Where requests go (the document's own `servers` name the public URL, not this test server). */
  baseUrl: string;
  /** Headers sent with every request (`Authorization: Bearer …`). */
  headers?: Record<string, string>;
  /**
   * The session cookie's value for the application document's `session` security scheme
   * (`[auth.openapi.session]` in schemathesis.toml): Schemathesis sends it, and leaves it out to check 401s.
   */
  sessionToken?: string;
  /** The backoffice session cookie's value, for the `backoffice` scheme (`[auth.openapi.backoffice]`). */
  backofficeSessionToken?: string;
  resources: Resources;
  seed: number;
  maxExamples: number;
  /** Concurrent Schemathesis workers. */
  workers: number;
  /** Reports, the resources file and a copy of the output are written here. */
  workDir: string;
  /** Extra arguments (a config file, say). */
  extraArgs?: string[];
  /** The whole run is killed after this long. */
  timeoutMs: number;
}

export interface Finding {
  /** "POST /api/v1/envelopes/{id}/extend" */
  operation: string;
  /** The JUnit message: the failed checks' codes, comma-separated. */
  checks: string;
  /** Schemathesis' own account: each failure, the response, and the curl command that reproduces it. */
  text: string;
}

export interface SchemathesisResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  /** The full console output (stdout and stderr). */
  output: string;
  /** The command line, for the report (without the headers' values). */
  command: string;
  report: JsonReport | undefined;
  /** Failures per operation, from the JUnit report. */
  failures: Finding[];
  /** Errors per operation (a schema Schemathesis could not use, a network error), from the JUnit report. */
  errors: Finding[];
  workDir: string;
}

/** The parts of Schemathesis' JSON run report (`--report json`) this test reads. */
export interface JsonReport {
  schemathesis_version: string;
  seed: number | null;
  running_time: number;
  stop_reason: string;
  complete: boolean;
  exit_code: number;
  operations: { total: number; selected: number; tested: number; errored: number; skipped: number } | null;
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: { type: string; code: string; title: string; count: number; operations: string[] }[];
  errors: { title: string; count: number }[];
  warnings: string[];
}

export async function runSchemathesis(run: SchemathesisRun): Promise<SchemathesisResult> {
  await mkdir(run.workDir, { recursive: true });
  const resourcesFile = join(run.workDir, 'resources.json');
  await writeFile(resourcesFile, `${JSON.stringify(run.resources, null, 2)}\n`);
  const junit = join(run.workDir, 'junit.xml');
  const json = join(run.workDir, 'report.json');
  const args = [
    '--config-file',
    CONFIG_FILE,
    'run',
    run.schemaUrl,
    '--url',
    run.baseUrl,
    '--checks',
    'all',
    // Every case of an operation runs even after one failed, so the report lists every finding.
    '--continue-on-failure',
    '--seed',
    String(run.seed),
    '--max-examples',
    String(run.maxExamples),
    '--workers',
    String(run.workers),
    // Nothing remembered between runs: the same seed sends the same requests every time.
    '--generation-database',
    'none',
    '--request-timeout',
    '15',
    '--report',
    'junit,json',
    '--report-junit-path',
    junit,
    '--report-json-path',
    json,
    '--no-color',
    ...(run.extraArgs ?? []),
  ];
  const headerArgs = Object.entries(run.headers ?? {}).flatMap(([name, value]) => [
    '-H',
    `${name}: ${value}`,
  ]);
  const command = [
    run.st,
    ...args,
    ...Object.keys(run.headers ?? {}).flatMap((name) => ['-H', `'${name}: …'`]),
  ]
    .map((part) => (/\s/.test(part) && !part.startsWith("'") ? `'${part}'` : part))
    .join(' ');

  const started = Date.now();
  const { exitCode, signal, output } = await new Promise<{
    exitCode: number | null;
    signal: NodeJS.Signals | null;
    output: string;
  }>((resolve) => {
    const chunks: string[] = [];
    const child = spawn(run.st, [...args, ...headerArgs], {
      // Schemathesis writes nothing else of its own into the working directory with these options; the
      // scratch directory keeps the repository clean even so.
      cwd: run.workDir,
      env: {
        ...process.env,
        SCHEMATHESIS_HOOKS: HOOKS_FILE,
        SIGIL_FUZZ_RESOURCES: resourcesFile,
        PYTHONUNBUFFERED: '1',
        // No __pycache__ next to the hooks file in the repository.
        PYTHONDONTWRITEBYTECODE: '1',
        NO_COLOR: '1',
        SIGIL_FUZZ_SESSION: run.sessionToken ?? '',
        SIGIL_FUZZ_BACKOFFICE_SESSION: run.backofficeSessionToken ?? '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), run.timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => chunks.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => chunks.push(chunk));
    child.once('error', (error) => {
      chunks.push(`\n${String(error)}\n`);
    });
    child.once('close', (code, killedBy) => {
      clearTimeout(timer);
      resolve({ exitCode: code, signal: killedBy, output: chunks.join('') });
    });
  });
  const durationMs = Date.now() - started;
  await writeFile(join(run.workDir, 'output.txt'), output);

  // A run killed at its timeout leaves the report missing or cut short: no figures, and the kill is a problem
  // of its own (`findings`), not a JSON error.
  const report = await readFile(json, 'utf8').then(
    (text) => {
      try {
        return JSON.parse(text) as JsonReport;
      } catch {
        return undefined;
      }
    },
    () => undefined,
  );
  const xml = await readFile(junit, 'utf8').catch(() => '');
  const { failures, errors } = parseJunit(xml);
  return { exitCode, signal, durationMs, output, command, report, failures, errors, workDir: run.workDir };
}

/** Every `<testcase>` with its `<failure>` and `<error>` elements (the JUnit report Schemathesis writes). */
export function parseJunit(xml: string): { failures: Finding[]; errors: Finding[] } {
  const failures: Finding[] = [];
  const errors: Finding[] = [];
  const testcases = xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g);
  for (const [, attributes = '', body = ''] of testcases) {
    const operation = decodeXml(/\bname="([^"]*)"/.exec(attributes)?.[1] ?? '?');
    const outcomes = body.matchAll(/<(failure|error)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/\1>)/g);
    for (const [, kind, outcomeAttributes = '', text = ''] of outcomes) {
      const finding = {
        operation,
        checks: decodeXml(/\bmessage="([^"]*)"/.exec(outcomeAttributes)?.[1] ?? ''),
        text: decodeXml(text).trim(),
      };
      (kind === 'failure' ? failures : errors).push(finding);
    }
  }
  return { failures, errors };
}

function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot|apos);/g, (_, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number.parseInt(entity.slice(1), 10));
    return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[entity] ?? entity;
  });
}

/** One line of figures: operations, generated cases, failures, time. */
export function summarize(name: string, result: SchemathesisResult): string {
  const report = result.report;
  if (!report) return `${name}: no JSON report (exit ${result.exitCode ?? result.signal})`;
  const operations = report.operations;
  return (
    `${name}: Schemathesis ${report.schemathesis_version}, seed ${report.seed}, ` +
    `${operations?.tested ?? 0} of ${operations?.total ?? 0} operations tested, ` +
    `${report.test_cases.generated} cases generated, ${report.test_cases.unique_failures} unique failures in ` +
    `${new Set(result.failures.map((finding) => finding.operation)).size} operations, ${result.errors.length} errors, ` +
    `${(result.durationMs / 1000).toFixed(1)} s`
  );
}

/**
 * Everything wrong with a run, one block per failing operation with Schemathesis' account of it (check,
 * response, curl to reproduce), or an empty list. A run that did not finish, tested nothing or wrote no report
 * is wrong too.
 */
export function findings(result: SchemathesisResult): string[] {
  const problems: string[] = [];
  const report = result.report;
  if (result.signal) problems.push(`st was killed (${result.signal}): the run took too long`);
  if (!report) {
    problems.push(
      `st wrote no JSON report (exit code ${result.exitCode}); its output:\n${tail(result.output)}`,
    );
    return problems;
  }
  if (!report.complete) problems.push(`the run did not complete (stop reason: ${report.stop_reason})`);
  if (!report.operations || report.operations.tested === 0 || report.test_cases.generated === 0) {
    problems.push(`nothing was tested; st's output:\n${tail(result.output)}`);
  }
  for (const finding of result.failures) {
    problems.push(`${finding.operation} — failed checks: ${finding.checks}\n${indent(finding.text)}`);
  }
  for (const finding of result.errors) {
    problems.push(
      `${finding.operation} — error${finding.checks ? ` (${finding.checks})` : ''}\n${indent(finding.text)}`,
    );
  }
  for (const error of report.errors) {
    if (!result.errors.some((finding) => finding.text.includes(error.title))) {
      problems.push(`error: ${error.title} (${error.count}×)`);
    }
  }
  if (problems.length === 0 && result.exitCode !== 0) {
    problems.push(
      `st exited with ${result.exitCode} without a failure in its reports; its output:\n${tail(result.output)}`,
    );
  }
  return problems;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

function tail(text: string, lines = 60): string {
  return indent(text.split('\n').slice(-lines).join('\n'));
}
