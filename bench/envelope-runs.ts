// What the lifecycle benchmarks share: a two-signer Sequential envelope created and sent through /api/v1, each
// signer through the signer API (app.inject: open the link, fill their fields, complete with consent), until
// the envelope's workflow answers Completed.
import { performance } from 'node:perf_hooks';
import { AuditEvent } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import type { FinalPdfField, RenderFinalPdfInput } from '../pdf/render-final-pdf.ts';
import { signerValues } from '../scripts/chaos/integrator.ts';
import { buildDemoPdf } from '../scripts/demo/demo-pdf.ts';
import { issueSigningLinks } from '../services/signing/issue-signing-links.ts';
import { callAs } from '../test/support/app-requests.ts';
import { encodePng } from '../test/support/png.ts';
import { envelopeWorkflowId } from '../workflows/contracts.ts';
import type { envelopeWorkflow } from '../workflows/envelope.ts';
import type { startBenchApi } from './support.ts';

/** A wavy stroke, like a drawn signature. */
export function strokePng(width = 120, height = 40): Buffer {
  return encodePng(width, height, (x, y) =>
    Math.abs(y - height / 2 - Math.sin(x / 9) * 6) < 2 ? [15, 25, 110, 255] : [0, 0, 0, 0],
  );
}

type Bench = Awaited<ReturnType<typeof startBenchApi>>;

/** Last signature → final PDF ready per envelope (ms), from the audit events' times. */
export async function finalPdfLatencies(orm: Orm, ids: string[]): Promise<number[]> {
  const events = await orm.em
    .fork()
    .find(
      AuditEvent,
      { envelopeId: { $in: ids }, type: { $in: ['recipient.completed', 'document.final_pdf_ready'] } },
      { orderBy: { sequence: 'asc' } },
    );
  const latencies: number[] = [];
  for (const id of ids) {
    const own = events.filter((e) => e.envelopeId === id);
    const lastSigned = own.filter((e) => e.type === 'recipient.completed').at(-1);
    const ready = own.find((e) => e.type === 'document.final_pdf_ready');
    if (lastSigned && ready) latencies.push(ready.occurredAt.getTime() - lastSigned.occurredAt.getTime());
  }
  return latencies;
}

/** What renderFinalPdf gets for a document of `pages` demo pages, each with a name and a signature. */
export async function renderInput(pages: number, signature: Buffer): Promise<RenderFinalPdfInput> {
  const basePdf = await buildDemoPdf(`Benchmark agreement (${pages} pages)`, pages);
  const fields: FinalPdfField[] = Array.from({ length: pages }, (_, index) => [
    {
      type: 'Full name' as const,
      page: index + 1,
      x: 56,
      y: 600,
      width: 220,
      height: 24,
      value: `Dana Levi, page ${index + 1}`,
    },
    {
      type: 'Signature' as const,
      page: index + 1,
      x: 56,
      y: 680,
      width: 220,
      height: 50,
      value: { imagePng: signature, typedName: 'Dana Levi' },
    },
  ]).flat();
  return { basePdf, fields, envelopeId: 'bench-envelope', completedAt: new Date('2026-01-15T10:00:00Z') };
}

export function envelopeRuns(bench: Bench, signature: Buffer) {
  const { app, infrastructure, organization, template, temporal } = bench;
  const headers = bench.auth;
  const ctx = {
    get em() {
      return infrastructure.orm.em.fork();
    },
    config: bench.config,
  };
  const signatureBase64 = signature.toString('base64');

  const integrator = { headers };
  const signerPage = { headers: { 'user-agent': 'sigil-bench' } };

  /** Creates and sends a 2-signer Sequential envelope from the demo template through /api/v1. */
  async function createAndSend(title: string): Promise<string> {
    const created = await callAs(
      app,
      integrator,
      'POST',
      '/api/v1/envelopes/from-template',
      {
        title,
        workflowType: 'Sequential',
        templateId: template.id,
        recipients: [
          { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', signingOrder: 1 },
          { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', signingOrder: 2 },
        ],
      },
      { status: 201 },
    );
    const id = created.id as string;
    await callAs(app, integrator, 'POST', `/api/v1/envelopes/${id}/send`);
    return id;
  }

  /** One signer through the signer API: open the link, fill every own field, complete with consent. */
  async function sign(token: string, name: string): Promise<void> {
    const view = await callAs(app, signerPage, 'GET', `/api/signing/${token}`);
    if (view.state !== 'ready') throw new Error(`${name}'s link is ${view.state}, not ready`);
    const fields = view.fields as { fieldDefinitionId: string; type: string }[];
    const values = signerValues(fields, name, signatureBase64);
    if (values.length > 0) await callAs(app, signerPage, 'PUT', `/api/signing/${token}/fields`, { values });
    await callAs(app, signerPage, 'POST', `/api/signing/${token}/complete`, { consent: true });
  }

  async function lifecycle(title: string): Promise<{ id: string; sendToCompletedMs: number }> {
    const started = performance.now();
    const id = await createAndSend(title);
    const links = await issueSigningLinks(ctx, organization.id, id);
    const tokenOf = (name: string) => {
      const link = links.find((l) => l.fullName === name);
      if (!link) throw new Error(`no signing link for ${name} on ${id}`);
      return link.url.split('/sign/')[1] as string;
    };
    await sign(tokenOf('Dana Levi'), 'Dana Levi');
    await sign(tokenOf('Sam Cohen'), 'Sam Cohen');
    const result = await temporal.client.workflow
      .getHandle<typeof envelopeWorkflow>(envelopeWorkflowId(id))
      .result();
    if (result.status !== 'Completed') throw new Error(`envelope ${id} ended ${result.status}`);
    return { id, sendToCompletedMs: performance.now() - started };
  }

  return { createAndSend, sign, lifecycle };
}
