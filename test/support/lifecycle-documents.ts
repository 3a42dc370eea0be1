// Envelopes the archive, unarchive and delete routes (/api/documents/{id}/…) can act on, made with the services
// in an existing organization: a Cancelled one (finished, so it may be archived) and a Draft (which may only be
// deleted). For the tests that walk every route with real ids (the tenant matrix, the fuzzers).

import type { TemplateDefinition } from '../../domain/template.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import { cancelEnvelope } from '../../services/envelopes/cancel-envelope.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { type TestContext, TWO_SIGNERS } from './context.ts';

export interface LifecycleDocuments {
  finishedDocument: string;
  draftDocument: string;
}

export async function lifecycleDocuments(
  ctx: TestContext,
  organizationId: string,
  count = 1,
): Promise<LifecycleDocuments & { finished: string[]; drafts: string[] }> {
  const template = await createTemplate(ctx, {
    organizationId,
    pdf: await buildDemoPdf(),
    filename: 'lifecycle.pdf',
    definition: DEMO_TEMPLATE_DEFINITION as unknown as TemplateDefinition,
    publish: true,
  });
  const draft = async () =>
    (
      await createEnvelope(ctx, {
        title: 'Lifecycle fixture',
        recipients: TWO_SIGNERS,
        organizationId,
        templateId: template.id,
      })
    ).id;
  const finished: string[] = [];
  const drafts: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const id = await draft();
    await sendEnvelope(ctx, organizationId, id);
    await cancelEnvelope(ctx, organizationId, id);
    finished.push(id);
    drafts.push(await draft());
  }
  return { finishedDocument: finished[0] as string, draftDocument: drafts[0] as string, finished, drafts };
}
