// The hash chain through an envelope's audit events (docs/audit-chain.md) on the real PostgreSQL, Temporal server
// and worker: a Completed envelope, archived afterwards (an event recorded outside the workflow), has every event
// in one intact chain whose head the envelope records and the audit-trail PDF prints; editing an event's data or
// time, removing an event (in the middle or the last one), or swapping two events' places is each found and named
// (each tampering in a transaction rolled back: the envelope stays intact); `sigil envelope verify-audit` says
// the same and exits 1 for a broken chain; another organization's envelope is not found.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type AuditChainVerification, verifyAuditChain } from '../../db/audit-chain.ts';
import type { TemplateDefinition } from '../../domain/template.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { TWO_SIGNERS } from '../support/context.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';
import { storedBytes } from '../support/stored-files.ts';

const run = promisify(execFile);

let harness: ApiHarness;
let owner: SignedInUser;
let envelopeId: string;

beforeAll(async () => {
  harness = await openApiHarness();
  owner = await signedInUser(harness, { role: 'owner' });
  const organizationId = owner.organization.id;
  const template = await createTemplate(harness.ctx, {
    organizationId,
    pdf: await buildDemoPdf(),
    filename: 'chain.pdf',
    definition: DEMO_TEMPLATE_DEFINITION as unknown as TemplateDefinition,
    publish: true,
  });
  const envelope = await createEnvelope(harness.ctx, {
    title: `Chain ${randomUUID().slice(0, 8)}`,
    recipients: TWO_SIGNERS,
    organizationId,
    templateId: template.id,
  });
  envelopeId = envelope.id;
  await sendEnvelope(harness.ctx, organizationId, envelopeId);
  const { recipients } = await findEnvelope(harness.ctx, organizationId, envelopeId);
  for (const recipient of recipients) {
    await completeRecipient(harness.ctx, organizationId, envelopeId, recipient.id);
  }
  await harness.ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId)).result();
  const archived = await harness.app.inject({
    method: 'POST',
    url: `/api/documents/${envelopeId}/archive`,
    headers: owner.headers,
  });
  expect(archived.statusCode, archived.body).toBe(200);
});
afterAll(() => harness?.close());

const em = () => harness.ctx.orm.em.fork();

class Rollback extends Error {}

/** Every page's text, its runs joined. */
async function extractPdfText(bytes: Uint8Array): Promise<string> {
  const task = getDocument({ data: new Uint8Array(bytes), verbosity: 0 });
  const pdf = await task.promise;
  const pages: string[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const items = (await (await pdf.getPage(number)).getTextContent()).items;
    pages.push(
      items
        .filter((item): item is TextItem => 'str' in item)
        .map((item) => item.str)
        .join(' '),
    );
  }
  await task.destroy();
  return pages.join('\n');
}

/** Tampers inside a transaction, verifies there, and rolls back: the stored envelope stays intact. */
async function tampered(sql: string[]): Promise<AuditChainVerification> {
  let result: AuditChainVerification | null = null;
  await em()
    .transactional(async (tx: EntityManager) => {
      for (const statement of sql) await tx.execute(statement.replaceAll(':envelope', `'${envelopeId}'`));
      result = await verifyAuditChain(tx, envelopeId);
      throw new Rollback();
    })
    .catch((error: unknown) => {
      if (!(error instanceof Rollback)) throw error;
    });
  if (!result) throw new Error('no verification');
  return result;
}

async function sequences(): Promise<number[]> {
  const rows = await em().execute<{ sequence: number }[]>(
    'select sequence from audit_event where envelope_id = ? order by chain_index',
    [envelopeId],
  );
  return rows.map((row) => row.sequence);
}

describe('the audit chain', () => {
  it('links every event of a completed and archived envelope, and the audit trail prints its head', async () => {
    const verification = await verifyAuditChain(em(), envelopeId);
    const stored = await sequences();
    expect(verification).toMatchObject({ envelopeId, intact: true, problems: [] });
    expect(verification?.events).toBe(stored.length);
    expect(stored.length).toBeGreaterThanOrEqual(5);
    // The workflow's transitions in order, then the archive recorded outside it.
    expect(stored.slice(0, -1)).toEqual(stored.slice(0, -1).sort((a, b) => a - b));
    expect(stored.at(-1)).toBeGreaterThan(2 ** 30);
    expect(verification?.head).toMatch(/^[0-9a-f]{64}$/);

    // The audit trail was made when the last recipient completed: it prints the head as it stood then, the hash
    // of the last event it lists.
    const [row] = await em().execute<{ file: string }[]>(
      'select audit_trail_file_id as file from envelope where id = ?',
      [envelopeId],
    );
    const text = (await extractPdfText(await storedBytes(harness.ctx, row?.file as string))).replace(
      /\s+/g,
      '',
    );
    const printed = /Auditchainhead\((\d+)events\)([0-9a-f]{64})/.exec(text);
    const listed = /Eventlog\((\d+)events\)/.exec(text);
    expect(printed?.[1]).toBe(listed?.[1]);
    const [atRender] = await em().execute<{ hash: string }[]>(
      `select encode(hash, 'hex') as hash from audit_event where envelope_id = ? and chain_index = ?`,
      [envelopeId, Number(printed?.[1])],
    );
    expect(printed?.[2]).toBe(atRender?.hash);
  });

  it('finds an event whose data or time was changed, naming it', async () => {
    const [second] = (await sequences()).slice(1, 2);
    const edited = await tampered([
      `update audit_event set data = data || '{"ip": "203.0.113.9"}' where envelope_id = :envelope and sequence = ${second}`,
    ]);
    expect(edited.intact).toBe(false);
    expect(edited.problems).toEqual([{ sequence: second, problem: 'was changed after it was recorded' }]);

    const retimed = await tampered([
      `update audit_event set occurred_at = occurred_at - interval '1 day' where envelope_id = :envelope and sequence = ${second}`,
    ]);
    expect(retimed.problems).toEqual([{ sequence: second, problem: 'was changed after it was recorded' }]);
  });

  it('finds a removed event, in the middle or at the end', async () => {
    const stored = await sequences();
    const middle = stored[3] as number;
    const removed = await tampered([
      `delete from audit_event where envelope_id = :envelope and sequence = ${middle}`,
    ]);
    expect(removed.intact).toBe(false);
    expect(removed.problems).toContainEqual({
      sequence: stored[4],
      problem: 'does not follow the event before it in the chain',
    });
    expect(removed.problems).toContainEqual({
      sequence: null,
      problem: `the envelope recorded ${stored.length} events in its chain, ${stored.length - 1} are stored`,
    });

    const last = stored.at(-1) as number;
    const truncated = await tampered([
      `delete from audit_event where envelope_id = :envelope and sequence = ${last}`,
    ]);
    expect(truncated.problems).toEqual([
      {
        sequence: null,
        problem: `the envelope recorded ${stored.length} events in its chain, ${stored.length - 1} are stored`,
      },
      { sequence: null, problem: 'the last stored event is not the chain head the envelope recorded' },
    ]);
  });

  it('finds two events whose places were swapped', async () => {
    const stored = await sequences();
    const [a, b] = [stored[1] as number, stored[2] as number];
    const swapped = await tampered([
      `update audit_event set chain_index = -chain_index where envelope_id = :envelope and sequence in (${a}, ${b})`,
      `update audit_event set chain_index = case sequence when ${a} then 3 else 2 end
        where envelope_id = :envelope and sequence in (${a}, ${b})`,
    ]);
    expect(swapped.intact).toBe(false);
    expect(swapped.problems.map((problem) => problem.sequence)).toEqual(expect.arrayContaining([a, b]));
    expect(swapped.problems).toContainEqual({ sequence: a, problem: 'was changed after it was recorded' });
  });

  it('is verified by sigil envelope verify-audit, which exits 1 for a broken chain', async () => {
    const cli = (args: string[]) =>
      run(process.execPath, ['api/cli/sigil.ts', ...args, '--json'], {
        env: { ...process.env, DATABASE_URL: inject('databaseUrl') },
      });
    const { stdout } = await cli([
      'envelope',
      'verify-audit',
      '--org',
      owner.organization.id,
      '--envelope',
      envelopeId,
    ]);
    expect(JSON.parse(stdout)).toMatchObject({ envelopeId, intact: true, problems: [] });

    const other = await signedInUser(harness, { role: 'owner' });
    const foreign = await cli([
      'envelope',
      'verify-audit',
      '--org',
      other.organization.id,
      '--envelope',
      envelopeId,
    ]).catch((error: { code: number; stdout: string }) => error);
    expect((foreign as { code: number }).code).toBe(1);
    expect(JSON.parse((foreign as { stdout: string }).stdout).error.code).toBe('not_found');

    // Broken for real (restored afterwards): the command names the event and exits 1.
    const [first] = await sequences();
    const [before] = await em().execute<{ data: unknown }[]>(
      'select data from audit_event where envelope_id = ? and sequence = ?',
      [envelopeId, first],
    );
    await em().execute(
      `update audit_event set data = '{"forged": true}' where envelope_id = ? and sequence = ?`,
      [envelopeId, first],
    );
    try {
      const broken = await cli([
        'envelope',
        'verify-audit',
        '--org',
        owner.organization.id,
        '--envelope',
        envelopeId,
      ]).catch((error: { code: number; stdout: string }) => error);
      expect((broken as { code: number }).code).toBe(1);
      expect(JSON.parse((broken as { stdout: string }).stdout).error).toMatchObject({
        code: 'audit_chain_broken',
        details: [{ field: `event ${first}`, message: 'was changed after it was recorded' }],
      });
    } finally {
      await em().execute('update audit_event set data = ?::jsonb where envelope_id = ? and sequence = ?', [
        JSON.stringify(before?.data),
        envelopeId,
        first,
      ]);
    }
    expect((await verifyAuditChain(em(), envelopeId))?.intact).toBe(true);
  });
});
