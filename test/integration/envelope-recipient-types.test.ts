// Recipient types in GroupedRounds on the real dev server: a Signer and a FormFiller in round 1, an
// Approver and a Viewer in round 2, a Cc who never acts; progress statuses and completion actions projected.
// Links are handed out by hand (ManualLink), so no invitation changes a status here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent } from '../../db/entities/index.ts';
import type { TemplateDefinition } from '../../domain/template.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { envelopeView } from '../../services/envelopes/envelope-view.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { Conflict } from '../../services/errors.ts';
import { envelopeWorkflowId, recipientProgressUpdate } from '../../workflows/contracts.ts';
import { createOrganizationWithTemplate, openTestContext, type TestContext } from '../support/context.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await openTestContext();
});
afterAll(() => ctx.close());

const box = { page: 1, width: 150, height: 20 };
const DEFINITION = {
  name: 'Purchase approval',
  roles: [
    { name: 'Buyer', required: true },
    { name: 'Clerk', required: true },
    { name: 'Manager', required: true },
    { name: 'Auditor', required: true },
    { name: 'Archive', required: false },
  ],
  fields: [
    { type: 'Signature', role: 'Buyer', label: 'Buyer signature', x: 40, y: 40, ...box, height: 40 },
    { type: 'Text', role: 'Clerk', label: 'Cost centre', x: 40, y: 100, ...box },
    { type: 'Read-only text', role: 'Manager', label: 'Policy', x: 40, y: 140, ...box },
  ],
} as unknown as TemplateDefinition;

describe('recipient types (GroupedRounds)', () => {
  it('rounds of Signer + FormFiller, then Approver + Viewer; the Cc never acts', async () => {
    const { organization, template } = await createOrganizationWithTemplate(ctx, DEFINITION);
    const envelope = await createEnvelope(ctx, {
      organizationId: organization.id,
      templateId: template.id,
      title: 'Purchase 42',
      workflowType: 'GroupedRounds',
      recipients: [
        {
          roleName: 'Buyer',
          fullName: 'Dana Levi',
          email: 'dana@example.com',
          deliveryChannel: 'ManualLink',
          signingOrder: 1,
        },
        {
          roleName: 'Clerk',
          fullName: 'Avi Ron',
          email: 'avi@example.com',
          deliveryChannel: 'ManualLink',
          signingOrder: 1,
          type: 'FormFiller',
        },
        {
          roleName: 'Manager',
          fullName: 'Noa Bar',
          email: 'noa@example.com',
          deliveryChannel: 'ManualLink',
          signingOrder: 2,
          type: 'Approver',
        },
        {
          roleName: 'Auditor',
          fullName: 'Eli Tal',
          email: 'eli@example.com',
          deliveryChannel: 'ManualLink',
          signingOrder: 2,
          type: 'Viewer',
        },
        {
          roleName: 'Archive',
          fullName: 'Records',
          email: 'records@example.com',
          deliveryChannel: 'ManualLink',
          type: 'Cc',
        },
      ],
    });
    const { recipients } = await findEnvelope(ctx, organization.id, envelope.id);
    const [buyer, clerk, manager, auditor, cc] = recipients.map((r) => r.id) as string[];
    const handle = ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelope.id));
    const statuses = async () =>
      (await findEnvelope(ctx, organization.id, envelope.id)).recipients.map((r) => r.status);

    const sent = await sendEnvelope(ctx, organization.id, envelope.id);
    expect(sent.recipients.map((r) => r.status)).toEqual([
      'Pending',
      'Pending',
      'WaitingForTurn',
      'WaitingForTurn',
      'Pending',
    ]);

    // Round 1: the clerk starts filling (InProgress); the approver may not act yet.
    await handle.executeUpdate(recipientProgressUpdate, {
      args: [{ recipientId: clerk as string, step: 'viewed' }],
    });
    const started = await handle.executeUpdate(recipientProgressUpdate, {
      args: [{ recipientId: clerk as string, step: 'started' }],
    });
    expect(started.status).toBe('InProgress');
    await expect(completeRecipient(ctx, organization.id, envelope.id, manager as string)).rejects.toThrow(
      /not yet in turn/,
    );
    await expect(completeRecipient(ctx, organization.id, envelope.id, cc as string)).rejects.toBeInstanceOf(
      Conflict,
    );
    await completeRecipient(ctx, organization.id, envelope.id, clerk as string);
    const afterRound1 = await completeRecipient(ctx, organization.id, envelope.id, buyer as string);
    expect(afterRound1.status).toBe('WaitingForNextSigner');
    expect(await statuses()).toEqual(['Completed', 'Completed', 'Pending', 'Pending', 'Pending']);

    // Round 2: the Viewer cannot confirm before loading the document; the Approver needs nothing.
    await expect(completeRecipient(ctx, organization.id, envelope.id, auditor as string)).rejects.toThrow(
      /a Viewer completes after opening the document/,
    );
    await handle.executeUpdate(recipientProgressUpdate, {
      args: [{ recipientId: auditor as string, step: 'viewed' }],
    });
    // The Update answers once its transition is projected, so the status reads back at once. Recipients come back
    // in the order they were given (ties of signing order broken by position), however the rows were updated.
    expect(await statuses()).toEqual(['Completed', 'Completed', 'Pending', 'Viewed', 'Pending']);
    await completeRecipient(ctx, organization.id, envelope.id, manager as string);
    const last = await completeRecipient(ctx, organization.id, envelope.id, auditor as string);
    expect(last.status).toBe('ProcessingFinalPdf');
    expect((await handle.result()).status).toBe('Completed');
    expect(await statuses()).toEqual(['Completed', 'Completed', 'Completed', 'Completed', 'Pending']);

    const events = await ctx.orm.em
      .fork()
      .find(
        AuditEvent,
        { envelopeId: envelope.id, type: 'recipient.completed' },
        { orderBy: { sequence: 'asc' } },
      );
    expect(events.map((e) => [e.recipientId, e.data.action])).toEqual([
      [clerk, 'filled'],
      [buyer, 'signed'],
      [manager, 'approved'],
      [auditor, 'viewed'],
    ]);
    const progress = await ctx.orm.em.fork().find(AuditEvent, {
      envelopeId: envelope.id,
      type: { $in: ['recipient.viewed', 'recipient.started'] },
    });
    expect(progress).toHaveLength(3);
  });

  it('lists recipients of the same signing order in the order given, after their rows were updated', async () => {
    const definition = {
      name: 'Three in parallel',
      roles: ['A', 'B', 'C'].map((name) => ({ name, required: true })),
      fields: ['A', 'B', 'C'].map((role, i) => ({
        type: 'Signature',
        role,
        label: `Signature ${role}`,
        x: 40,
        y: 40 + 60 * i,
        ...box,
        height: 40,
      })),
    } as unknown as TemplateDefinition;
    const { organization, template } = await createOrganizationWithTemplate(ctx, definition);
    const given = ['Carmel Z', 'Adi A', 'Boaz M'];
    const envelope = await createEnvelope(ctx, {
      organizationId: organization.id,
      templateId: template.id,
      title: 'Order kept',
      workflowType: 'Parallel',
      recipients: given.map((fullName, i) => ({
        roleName: ['A', 'B', 'C'][i] as string,
        fullName,
        email: `r${i}@example.com`,
        deliveryChannel: 'ManualLink',
        signingOrder: 1,
      })),
    });
    // An update writes a new row version elsewhere in the table: the first recipient's row now comes last when
    // PostgreSQL scans it, which used to reorder the list.
    const em = ctx.orm.em.fork();
    const [first] = (await findEnvelope(ctx, organization.id, envelope.id)).recipients;
    await em.execute('update recipient set updated_at = now() where id = ?', [first?.id]);
    await em.execute('analyze recipient');
    const names = (await findEnvelope(ctx, organization.id, envelope.id)).recipients.map((r) => r.fullName);
    expect(names).toEqual(given);
    const view = await envelopeView(ctx, organization.id, envelope.id);
    expect(view.recipients.map((r) => r.fullName)).toEqual(given);
    const positions = await em.execute<{ full_name: string; position: number }[]>(
      'select full_name, position from recipient where envelope_id = ? order by position',
      [envelope.id],
    );
    expect(positions).toEqual(given.map((full_name, position) => ({ full_name, position })));
  });
});
