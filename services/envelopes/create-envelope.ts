// Creates a Draft envelope, from a published template (createEnvelope) or from an uploaded file
// (createEnvelopeFromFile). Both validate everything first (validateEnvelopeRequest and
// validateFileEnvelopeRequest, which the sandbox uses too) against one check of the request against its
// template (checkAgainstTemplate) — an envelope from a file is made from a hidden one-off template built from
// the file and the fields (services/templates/one-off-template.ts) — and then share one creation
// (createDraft): the envelope, its recipients and initial values and its `envelope.created` deliveries in one
// statement (with the one-off template, in one transaction). Nothing is sent and no workflow exists until send. Under an Idempotency-Key the same
// transaction records the envelope's id in the key's record, so a retry after a crash answers with this
// envelope (services/idempotency.ts).

import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import {
  Envelope,
  Organization,
  type Recipient,
  Template,
  TemplateField,
  TemplateRole,
} from '../../db/entities/index.ts';
import { type PreparedStatement, prepared, runPrepared } from '../../db/prepared.ts';
import { EVENT_DELIVERIES_INSERT, eventDeliveriesValues } from '../../db/webhook-deliveries.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import {
  CreateEnvelopeFromFileRequest,
  CreateEnvelopeRequest,
  type EnvelopeView,
  type NewRecipient,
} from '../../domain/envelope.ts';
import {
  type DeadlineSettingName,
  type DeadlineSettings,
  resolveDeadlineSettings,
} from '../../domain/envelope-settings.ts';
import type { FieldProperties } from '../../domain/template.ts';
import type {
  AuthenticationMethod,
  FieldType,
  RecipientType,
  WorkflowType,
} from '../../domain/vocabulary.ts';
import { temporalTimeoutMs } from '../../temporal/deadline.ts';
import { startWebhookDeliveries } from '../../temporal/webhook-deliveries.ts';
import { actsInRounds } from '../../workflows/rounds.ts';
import type { WebhookEvent } from '../../workflows/webhook-contracts.ts';
import type { DataContext, FilesContext, ServiceConfig } from '../context.ts';
import { InvalidRequest, NotFound } from '../errors.ts';
import { checkInitialValue } from '../fields/field-value.ts';
import { recordIdempotentResult } from '../idempotency.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { requireActiveOrganization } from '../organizations/organization-standing.ts';
import { deletedTemplateAsNotFound } from '../templates/archived-templates.ts';
import { addTemplateRows, type TemplateRows } from '../templates/create-template.ts';
import { oneOffTemplate } from '../templates/one-off-template.ts';
import { parseInput } from '../validation.ts';
import { organizationDeadlineSettings } from './deadline-settings.ts';
import { type EnvelopeRow, envelopeView, envelopeViewColumns, envelopeViewOfRow } from './envelope-view.ts';

export const DEFAULT_EXPIRATION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

const CreateEnvelopeInput = CreateEnvelopeRequest.extend({ organizationId: z.string() });
export type CreateEnvelopeInput = z.input<typeof CreateEnvelopeInput>;
const CreateEnvelopeFromFileInput = CreateEnvelopeFromFileRequest.extend({ organizationId: z.string() });
export type CreateEnvelopeFromFileInput = z.input<typeof CreateEnvelopeFromFileInput>;

/** A create request checked against its template: what createDraft writes, nothing written yet. */
export interface ValidatedEnvelopeRequest {
  organizationId: string;
  templateId: string;
  /** The uploaded file of an envelope created from a file; null for one created from a template. */
  sourceFileId: string | null;
  /** The one-off template of an envelope created from a file, written with it; null from a template. */
  oneOffTemplate: TemplateRows | null;
  title: string;
  workflowType: WorkflowType;
  expiresAt: Date;
  externalReference: string | null;
  externalSystem: string | null;
  externalMetadataJson: string | null;
  /** Whether recipients may hand their part to another person: the request's, else the template's. */
  allowDelegation: boolean;
  /** Reminder and deadline settings: the request's, else the organization's defaults. */
  deadlineSettings: DeadlineSettings;
  /** Each with the template role it fills (null: a role the template no longer has). */
  recipients: (NewRecipient & { roleId: string | null })[];
  initialValues: { fieldDefinitionId: string; value: unknown }[];
}

/**
 * Validates a create request against the organization's real template and returns the normalized envelope,
 * without writing anything. Production creation and the sandbox both use it, so both refuse the same
 * requests with the same errors.
 */
export async function validateEnvelopeRequest(
  ctx: DataContext,
  input: CreateEnvelopeInput,
): Promise<ValidatedEnvelopeRequest> {
  const data = parseInput(CreateEnvelopeInput, input, 'envelope');
  if (data.documents && data.documents.length > 0) {
    throw new InvalidRequest('An envelope holds exactly one template or one document, not both.', [
      { field: 'documents', message: 'must be empty when templateId is given' },
    ]);
  }
  return checkEnvelopeRequest(await findPublishedTemplate(ctx, data.organizationId, data.templateId), data);
}

/** A template with its roles (in their order) and fields (in theirs), as `row_to_json` gives the rows. */
const TEMPLATE_WITH_PARTS = prepared(
  'template_with_parts',
  `select row_to_json(t) as template,
          coalesce((select json_agg(row_to_json(r) order by r.position, r.id)
                      from template_role r where r.template_id = t.id), '[]') as roles,
          coalesce((select json_agg(row_to_json(f) order by f.position, f.id)
                      from template_field f where f.template_id = t.id), '[]') as fields
     from template t
    where t.id = ? and t.organization_id = ? and t.status <> 'OneOff' and t.archived_at is null`,
);

interface TemplateRow {
  template: Record<string, unknown>;
  roles: Record<string, unknown>[];
  fields: Record<string, unknown>[];
}

/** A published template of an organization with its roles and fields: what create requests are checked against. */
export interface PublishedTemplate {
  organization: Organization;
  template: Template;
  roles: TemplateRole[];
  fields: TemplateField[];
}

/**
 * The current published version of the organization's template `templateId`: 404 for a template that is not
 * the organization's (or is one-off or archived), 400 for a draft or a replaced version.
 */
export async function findPublishedTemplate(
  ctx: DataContext,
  organizationId: string,
  templateId: string,
): Promise<PublishedTemplate> {
  const organization = await findOrganization(ctx, organizationId);
  const { em } = ctx;
  // A one-off template (an envelope's from a file) is nobody's to send again: as unknown as any other id.
  // An archived template is gone from every list: as unknown too. The template comes with its roles and
  // fields in one statement (issue 19).
  const [row] = UUID_PATTERN.test(templateId)
    ? await runPrepared<TemplateRow>(em, TEMPLATE_WITH_PARTS, [templateId, organization.id])
    : [];
  const template = row ? em.map(Template, row.template as never) : null;
  if (!template) throw new NotFound(`Template ${templateId} was not found.`);
  if (template.status !== 'Published') {
    throw new InvalidRequest(
      `Template ${template.id} is not published; only published templates can be sent.`,
    );
  }
  if (template.supersededAt) {
    // A later version replaced it (docs/templates.md): envelopes already made from it keep it, new ones use
    // the current version, whose field ids differ.
    const current = await em.findOne(Template, {
      familyId: template.familyId,
      status: 'Published',
      supersededAt: null,
    });
    const instead = current ? ` Use version ${current.version}, id ${current.id}.` : '';
    throw new InvalidRequest(
      `Template ${template.id} is version ${template.version}, which a later version replaced.${instead}`,
      [
        {
          field: 'templateId',
          message: `version ${template.version} was replaced by a later version${instead}`,
        },
      ],
    );
  }
  const roles = (row?.roles ?? []).map((role) => em.map(TemplateRole, role as never));
  const fields = (row?.fields ?? []).map((field) => em.map(TemplateField, field as never));
  return { organization, template, roles, fields };
}

/** A parsed create request checked against a published template loaded once (findPublishedTemplate). */
export function checkEnvelopeRequest(
  published: PublishedTemplate,
  data: EnvelopeBasics & { initialValues: { fieldDefinitionId: string; value: unknown }[] },
): ValidatedEnvelopeRequest {
  const { organization, template, roles, fields } = published;
  const initialValues = data.initialValues.map((item, index) => ({ ...item, at: `initialValues.${index}` }));
  return {
    ...checkAgainstTemplate(organization, data, { roles, fields }, initialValues),
    allowDelegation: data.allowDelegation ?? template.allowDelegation,
    templateId: template.id,
    sourceFileId: null,
    oneOffTemplate: null,
  };
}

/**
 * Validates a request to create an envelope from an uploaded file: builds its one-off template from the file
 * and the fields (404 for a file that is not the organization's; 400 for a field off its page, on a page the
 * PDF lacks, or roles that do not fit), then checks the rest exactly as a request from a template. Writes
 * nothing; production creation and the sandbox both use it.
 */
export async function validateFileEnvelopeRequest(
  ctx: DataContext & FilesContext,
  input: CreateEnvelopeFromFileInput,
): Promise<ValidatedEnvelopeRequest> {
  const data = parseInput(CreateEnvelopeFromFileInput, input, 'envelope');
  const organization = await findOrganization(ctx, data.organizationId);
  const template = await oneOffTemplate(ctx, {
    organizationId: organization.id,
    fileId: data.fileId,
    title: data.title,
    fields: data.fields,
    recipients: data.recipients,
  });
  return {
    ...checkAgainstTemplate(organization, data, template.rows, template.initialValues),
    allowDelegation: data.allowDelegation ?? false,
    templateId: template.rows.template.id,
    sourceFileId: template.rows.template.fileId,
    oneOffTemplate: template.rows,
  };
}

/** What every create request holds, whatever the envelope is made from. */
type EnvelopeBasics = Pick<
  z.output<typeof CreateEnvelopeInput>,
  | 'title'
  | 'workflowType'
  | 'expiresAt'
  | 'externalReference'
  | 'externalSystem'
  | 'externalMetadataJson'
  | 'recipients'
  | 'allowDelegation'
  | DeadlineSettingName
>;

/** The roles and fields a request is checked against: a published template's rows, or a one-off's. */
interface TemplateShape {
  roles: readonly { id: string; name: string; required: boolean }[];
  fields: readonly TemplateFieldShape[];
}
type TemplateFieldShape = {
  id: string;
  roleId: string;
  type: FieldType;
  label: string;
  options?: string[] | null;
  properties?: FieldProperties | null;
};

/** A prefilled value as the request gave it, `at` its place in the request (`initialValues.<i>`, `fields.<i>`). */
interface GivenValue {
  fieldDefinitionId: string;
  value: unknown;
  at: string;
}

/**
 * The checks every create request passes against its template's roles and fields: recipients by roleName,
 * required roles, signing orders, who can fill which fields, languages and prefilled values. Throws one
 * InvalidRequest listing every problem; returns the normalized envelope otherwise.
 */
function checkAgainstTemplate(
  organization: Organization,
  data: EnvelopeBasics,
  template: TemplateShape,
  initialValues: GivenValue[],
): Omit<ValidatedEnvelopeRequest, 'templateId' | 'sourceFileId' | 'oneOffTemplate' | 'allowDelegation'> {
  const { roles, fields } = template;
  const recipients = data.recipients.map((recipient, index) => ({
    ...recipient,
    signingOrder: recipient.signingOrder ?? index + 1,
    deliveryChannel: recipient.deliveryChannel ?? (recipient.email ? 'Email' : 'ManualLink'),
    role: roles.find((role) => role.name === recipient.roleName),
  }));
  const problems = [
    ...recipients.flatMap((recipient, index) =>
      recipient.role
        ? []
        : [
            {
              field: `recipients.${index}.roleName`,
              message: `"${recipient.roleName}" is not a role of the template (roles: ${roles.map((r) => r.name).join(', ')})`,
            },
          ],
    ),
    ...roles
      .filter((role) => role.required)
      .filter((role) => !recipients.some((r) => r.role?.id === role.id && actsInRounds(r)))
      .map((role) => ({ field: 'recipients', message: `the required role "${role.name}" has no recipient` })),
    ...(data.workflowType === 'Sequential' ? duplicateOrders(recipients) : []),
    ...roleFieldProblems(recipients, fields),
    ...recipients.flatMap((recipient, index) =>
      recipient.language && !organization.supportedLanguages.includes(recipient.language)
        ? [
            {
              field: `recipients.${index}.language`,
              message: `"${recipient.language}" is not a language of this organization (${organization.supportedLanguages.join(', ')})`,
            },
          ]
        : [],
    ),
    ...initialValueProblems(initialValues, fields),
  ];
  if (problems.length > 0) {
    throw new InvalidRequest(`Invalid envelope: ${problems[0]?.field}: ${problems[0]?.message}`, problems);
  }

  return {
    organizationId: organization.id,
    title: data.title,
    workflowType: data.workflowType,
    deadlineSettings: resolveDeadlineSettings(organizationDeadlineSettings(organization), data),
    // Without expiresAt: the organization's defaultExpirationDays (settings), else 30 days, from creation.
    expiresAt: new Date(
      data.expiresAt ?? Date.now() + (organization.defaultExpirationDays ?? DEFAULT_EXPIRATION_DAYS) * DAY_MS,
    ),
    externalReference: data.externalReference ?? null,
    externalSystem: data.externalSystem ?? null,
    externalMetadataJson: data.externalMetadataJson ?? null,
    recipients: recipients.map((recipient) => ({
      roleId: recipient.role?.id ?? null,
      roleName: recipient.roleName,
      fullName: recipient.fullName,
      email: recipient.email ?? null,
      phone: recipient.phone ?? null,
      signingOrder: recipient.signingOrder,
      deliveryChannel: recipient.deliveryChannel,
      authenticationMethod:
        recipient.authenticationMethod ??
        defaultAuthentication(organization.defaultAuthenticationMethod, recipient.phone),
      type: recipient.type,
      language: recipient.language,
      required: requiredRecipient(recipient.type, recipient.role?.required ?? false),
    })),
    initialValues: [
      ...initialValues.map((item) => {
        const field = fields.find((f) => f.id === item.fieldDefinitionId) as TemplateFieldShape;
        const checked = checkInitialValue(field, item.value);
        return { fieldDefinitionId: field.id, value: checked.ok ? checked.value : null };
      }),
      // A Read-only text field shows its template's text unless the request gave it a value.
      ...fields
        .filter((field) => field.type === 'Read-only text' && field.properties?.text)
        .filter((field) => !initialValues.some((item) => item.fieldDefinitionId === field.id))
        .map((field) => ({ fieldDefinitionId: field.id, value: field.properties?.text as string })),
    ],
  };
}

/**
 * Who creates an envelope in the business app: the signed-in user and their team at that moment, recorded on
 * the envelope (`created_by_user_id`, `team_id`), which decide who sees it (docs/documents.md). Envelopes of the
 * public API and the CLI have none.
 */
export interface EnvelopeSender {
  userId: string;
  teamId: string | null;
}

/** A recipient as a creation wrote it: what a send that follows needs (send-envelope.ts). */
export type DraftRecipient = Pick<
  Recipient,
  'id' | 'signingOrder' | 'type' | 'required' | 'deliveryChannel' | 'authenticationMethod'
>;

/** What a creation knows and also writes, in the envelope's own transaction. */
export interface CreateOptions {
  /**
   * Runs in the transaction that writes the envelope (a bulk send's row records its envelope, the send page
   * reserves the send); throwing rolls the envelope back.
   */
  inTransaction?: (
    tx: EntityManager,
    envelope: { id: string; organizationId: string; recipients: DraftRecipient[] },
  ) => Promise<void>;
  /** The organization, when the caller has loaded it (a signed-in user's): not read again. */
  organization?: Organization;
}

/** A creation's envelope with the recipients it wrote, in signing order. */
export interface CreatedEnvelope {
  envelope: Envelope;
  /** Empty for `earlier`: an earlier attempt of the same Idempotency-Key request created the envelope. */
  recipients: DraftRecipient[];
  earlier: boolean;
}

type CreateContext = DataContext & { temporal?: Client; config?: ServiceConfig };

/** Creates a Draft envelope from a published template; `sender` when a user of the business app creates it. */
export async function createEnvelope(
  ctx: CreateContext,
  input: CreateEnvelopeInput,
  sender?: EnvelopeSender,
  options: CreateOptions = {},
): Promise<Envelope> {
  return (await createEnvelopeWithRecipients(ctx, input, sender, options)).envelope;
}

/** createEnvelope answering the recipients it wrote too (the send page sends them without reading them again). */
export async function createEnvelopeWithRecipients(
  ctx: CreateContext,
  input: CreateEnvelopeInput,
  sender?: EnvelopeSender,
  options: CreateOptions = {},
): Promise<CreatedEnvelope> {
  const validate = () => validateEnvelopeRequest(ctx, input);
  return createdOf(
    ctx,
    await createDraft<DraftRow>(ctx, input.organizationId, validate, sender, options, DRAFT_INSERT),
  );
}

/**
 * Creates a Draft envelope from an uploaded file and fields placed on it, through its one-off template, which
 * is written with the envelope. The public API's from-file route calls it; so can any other sender of a
 * one-off PDF.
 */
export async function createEnvelopeFromFile(
  ctx: CreateContext & FilesContext,
  input: CreateEnvelopeFromFileInput,
  sender?: EnvelopeSender,
): Promise<Envelope> {
  return (await createEnvelopeFromFileWithRecipients(ctx, input, sender)).envelope;
}

/** createEnvelopeFromFile answering the recipients it wrote too. */
export async function createEnvelopeFromFileWithRecipients(
  ctx: CreateContext & FilesContext,
  input: CreateEnvelopeFromFileInput,
  sender?: EnvelopeSender,
  options: CreateOptions = {},
): Promise<CreatedEnvelope> {
  const validate = () => validateFileEnvelopeRequest(ctx, input);
  return createdOf(
    ctx,
    await createDraft<DraftRow>(ctx, input.organizationId, validate, sender, options, DRAFT_INSERT),
  );
}

/** createEnvelope answering the public API's view of the new envelope, read by the statement that writes it. */
export function createEnvelopeView(ctx: CreateContext, input: CreateEnvelopeInput): Promise<EnvelopeView> {
  return createForView(ctx, input.organizationId, () => validateEnvelopeRequest(ctx, input));
}

/** createEnvelopeFromFile answering the public API's view of the new envelope. */
export function createEnvelopeFromFileView(
  ctx: CreateContext & FilesContext,
  input: CreateEnvelopeFromFileInput,
): Promise<EnvelopeView> {
  return createForView(ctx, input.organizationId, () => validateFileEnvelopeRequest(ctx, input));
}

/** What createDraft answers: the envelope an earlier attempt of the same request created, or the statement's row. */
type Draft<R> = { earlier: Envelope } | { row: R; recipients: DraftRecipient[] };

function createdOf(ctx: DataContext, draft: Draft<DraftRow>): CreatedEnvelope {
  return 'earlier' in draft
    ? { envelope: draft.earlier, recipients: [], earlier: true }
    : {
        envelope: ctx.em.map(Envelope, draft.row.envelope as never),
        recipients: draft.recipients,
        earlier: false,
      };
}

async function createForView(
  ctx: CreateContext,
  organizationId: string,
  validate: () => Promise<ValidatedEnvelopeRequest>,
): Promise<EnvelopeView> {
  const draft = await createDraft<DraftViewRow>(
    ctx,
    organizationId,
    validate,
    undefined,
    {},
    DRAFT_INSERT_VIEW,
  );
  return 'earlier' in draft
    ? envelopeView(ctx, organizationId, draft.earlier.id)
    : envelopeViewOfRow(draft.row);
}

/**
 * The one creation of every envelope: validates (`validate`, unless an earlier attempt of the same
 * Idempotency-Key request committed its envelope), then writes the one-off template if there is one, the
 * envelope, its recipients and initial values, and queues `envelope.created`, in one statement (`statement`:
 * DRAFT_INSERT or DRAFT_INSERT_VIEW, which differ only in what they answer; in one transaction with what else
 * must be written with it).
 */
async function createDraft<R extends { delivery_ids: string[] }>(
  ctx: CreateContext,
  organizationId: string,
  validate: () => Promise<ValidatedEnvelopeRequest>,
  sender: EnvelopeSender | undefined,
  options: CreateOptions,
  statement: PreparedStatement,
): Promise<Draft<R>> {
  const { em } = ctx;
  // A retried Idempotency-Key request whose earlier attempt committed its envelope (and then crashed, or lost
  // the database, before answering) answers with that envelope: nothing is created or queued again.
  const { idempotency } = ctx;
  if (idempotency?.resultId) {
    const earlier = await em.findOne(Envelope, { id: idempotency.resultId, organizationId });
    if (earlier) return { earlier };
  }
  // A suspended or deleted organization creates nothing (403, docs/backoffice.md): the public API, the send
  // page and bulk send all create here. Read by a prepared statement into the unit of work, where validation's
  // own lookup of the organization finds it.
  const organization =
    options.organization?.id === organizationId
      ? options.organization
      : await organizationRow(em, organizationId);
  if (organization) requireActiveOrganization(organization, 'create an envelope');
  const request = await validate();
  const envelopeId = randomUUID();
  const now = new Date();
  const { values, recipients } = draftValues(envelopeId, now, request, sender, {
    id: randomUUID(),
    type: 'envelope.created',
    created_at: now.toISOString(),
    data: { envelope_id: envelopeId, status: 'Draft', external_reference: request.externalReference ?? '' },
  });
  // The envelope, its recipients and initial values, and `envelope.created`'s deliveries are one statement,
  // so one alone is atomic (issue 19: no transaction, no ORM unit of work on the API's busiest write). A
  // one-off template, an Idempotency-Key's record or the caller's own writes join it in one transaction.
  let written: R;
  try {
    if (!request.oneOffTemplate && !idempotency && !options.inTransaction) {
      [written] = (await runPrepared<R>(em, statement, values)) as [R];
    } else {
      written = await em.transactional(async (tx) => {
        if (request.oneOffTemplate) {
          addTemplateRows(tx, request.oneOffTemplate);
          await tx.flush();
        }
        const [row] = (await runPrepared<R>(tx, statement, values)) as [R];
        // Committed with the envelope or not at all; fails when a retry of the request took its key over.
        if (idempotency) await recordIdempotentResult(tx, idempotency, envelopeId);
        await options.inTransaction?.(tx, {
          id: envelopeId,
          organizationId: request.organizationId,
          recipients,
        });
        return row;
      });
    }
  } catch (error) {
    // A template deleted since it was checked (migration 0039's trigger): as not found as it now is.
    throw deletedTemplateAsNotFound(error, request.templateId);
  }
  const deliveryIds = written.delivery_ids;
  // `envelope.created`'s deliveries start once it is committed (the worker's sweep starts any whose start was
  // lost).
  if (ctx.temporal && deliveryIds.length > 0) {
    const timeoutMs = temporalTimeoutMs(ctx.config);
    await startWebhookDeliveries(ctx.temporal, deliveryIds, { timeoutMs }).catch(() => {
      // Temporal unreachable: the envelope exists and its deliveries are queued; the sweep starts them.
    });
  }
  return { row: written, recipients };
}

/** The organization's row by a prepared statement, into the unit of work (where validation finds it). */
async function organizationRow(em: EntityManager, organizationId: string): Promise<Organization | null> {
  const [row] = UUID_PATTERN.test(organizationId)
    ? await runPrepared<{ organization: Record<string, unknown> }>(em, ORGANIZATION, [organizationId])
    : [];
  return row ? em.map(Organization, row.organization as never) : null;
}

interface DraftRow {
  /** The envelope's row as `row_to_json` gives it. */
  envelope: Record<string, unknown>;
  delivery_ids: string[];
}

type DraftViewRow = EnvelopeRow & { delivery_ids: string[] };

const ORGANIZATION = prepared(
  'organization_row',
  'select row_to_json(o) as organization from organization o where o.id = ?',
);

/**
 * A Draft envelope with its recipients (in the order given: `position`) and initial values, and the deliveries
 * of its `envelope.created` event, written by one statement (its parameters: draftValues). The rows of a
 * statement's data-modifying parts are checked against foreign keys at its end, so the recipients may name
 * the envelope inserted beside them.
 */
/** DRAFT_INSERT's writes; `answer` is its final select, over `envelope_row`, `recipient_rows`, `value_rows` and `deliveries`. */
function draftInsert(name: string, answer: string) {
  return prepared(
    name,
    `with envelope_row as (
       insert into envelope (id, organization_id, template_id, source_file_id, created_by_user_id, team_id, title,
                             workflow_type, status, expires_at, external_reference, external_system,
                             external_metadata_json, allow_delegation, deadline_settings, projected_sequence,
                             reminder_count, created_at, updated_at)
       values (?::uuid, ?::uuid, ?::uuid, ?::uuid, ?::uuid, ?::uuid, ?, ?, 'Draft', ?::timestamptz, ?, ?, ?,
               ?::boolean, ?::jsonb, 0, 0, ?::timestamptz, ?::timestamptz)
       returning *
     ), recipient_rows as (
       insert into recipient (id, envelope_id, role_id, role_name, full_name, email, phone, signing_order, position,
                              delivery_channel, authentication_method, type, language, required, status,
                              created_at, updated_at)
       select r.id, e.id, r.role_id, r.role_name, r.full_name, r.email, r.phone, r.signing_order, r.position,
              r.delivery_channel, r.authentication_method, r.type, r.language, r.required, 'Pending',
              ?::timestamptz, ?::timestamptz
         from envelope_row e,
              jsonb_to_recordset(?::jsonb) as r (id uuid, role_id uuid, role_name text, full_name text, email text,
                phone text, signing_order int, position int, delivery_channel text, authentication_method text,
                type text, language text, required boolean)
       returning *
     ), value_rows as (
       insert into envelope_field_value (id, envelope_id, field_id, value, source, recipient_id, created_at,
                                         updated_at)
       select v.id, e.id, v.field_id, v.value, 'initial', null, ?::timestamptz, ?::timestamptz
         from envelope_row e, jsonb_to_recordset(?::jsonb) as v (id uuid, field_id uuid, value jsonb)
       returning *
     ), deliveries as (${EVENT_DELIVERIES_INSERT})
     ${answer}`,
  );
}

const DELIVERY_IDS = 'array(select id::text from deliveries order by created_at, id) as delivery_ids';

/**
 * A Draft envelope with its recipients (in the order given: `position`) and initial values, and the deliveries
 * of its `envelope.created` event, written by one statement (its parameters: draftValues). The rows of a
 * statement's data-modifying parts are checked against foreign keys at its end, so the recipients may name
 * the envelope inserted beside them. It answers the envelope's row (for the ORM) and the delivery ids.
 */
const DRAFT_INSERT = draftInsert(
  'draft_insert',
  `select (select row_to_json(e) from envelope_row e) as envelope, ${DELIVERY_IDS}`,
);

/**
 * DRAFT_INSERT answering the public API's view of the new envelope instead (envelope-view.ts), from the rows
 * it wrote: the create's answer costs no second statement (issue 19).
 */
const DRAFT_INSERT_VIEW = draftInsert(
  'draft_insert_view',
  `select ${envelopeViewColumns(
    'recipient_rows r',
    'value_rows v left join template_field f on f.id = v.field_id',
  )}, ${DELIVERY_IDS} from envelope_row e`,
);

/** The recipient rows a Draft's insert writes (create and the Draft's edit), in signing order, with new ids. */
export function recipientRows(recipients: ValidatedEnvelopeRequest['recipients']) {
  return recipients.map((recipient, position) => ({
    id: randomUUID(),
    role_id: recipient.roleId,
    role_name: recipient.roleName,
    full_name: recipient.fullName,
    email: recipient.email,
    phone: recipient.phone,
    signing_order: recipient.signingOrder,
    position,
    delivery_channel: recipient.deliveryChannel,
    authentication_method: recipient.authenticationMethod,
    type: recipient.type,
    language: recipient.language ?? null,
    required: recipient.required,
  }));
}

/** The initial value rows a Draft's insert writes (create and the Draft's edit), with new ids. */
export function initialValueRows(values: ValidatedEnvelopeRequest['initialValues']) {
  return values.map((item) => ({ id: randomUUID(), field_id: item.fieldDefinitionId, value: item.value }));
}

/** The parameters of DRAFT_INSERT, in order, and the recipients they write (in signing order). */
function draftValues(
  envelopeId: string,
  now: Date,
  request: ValidatedEnvelopeRequest,
  sender: EnvelopeSender | undefined,
  event: WebhookEvent,
): { values: unknown[]; recipients: DraftRecipient[] } {
  const at = now.toISOString();
  const recipients = recipientRows(request.recipients);
  const initialValues = initialValueRows(request.initialValues);
  const values = [
    envelopeId,
    request.organizationId,
    request.templateId,
    request.sourceFileId,
    sender?.userId ?? null,
    sender?.teamId ?? null,
    request.title,
    request.workflowType,
    request.expiresAt.toISOString(),
    request.externalReference,
    request.externalSystem,
    request.externalMetadataJson,
    request.allowDelegation,
    JSON.stringify(request.deadlineSettings),
    at,
    at,
    at,
    at,
    JSON.stringify(recipients),
    at,
    at,
    JSON.stringify(initialValues),
    ...eventDeliveriesValues(request.organizationId, event),
  ];
  // As findEnvelope orders them: by signing order, then as given.
  const written = recipients
    .toSorted((a, b) => a.signing_order - b.signing_order || a.position - b.position)
    .map((recipient) => ({
      id: recipient.id,
      signingOrder: recipient.signing_order,
      type: recipient.type,
      required: recipient.required,
      deliveryChannel: recipient.delivery_channel,
      authenticationMethod: recipient.authentication_method,
    }));
  return { values, recipients: written };
}

/**
 * The authentication of a recipient created without one: the organization's defaultAuthenticationMethod
 * (settings) when the recipient has what it needs (a one-time code needs a phone number), else SecureLink.
 */
function defaultAuthentication(organizationDefault: string, phone: string | undefined): AuthenticationMethod {
  if (organizationDefault === 'OtpSms' || organizationDefault === 'OtpWhatsApp') {
    return phone ? organizationDefault : 'SecureLink';
  }
  return 'SecureLink';
}

function initialValueProblems(
  items: GivenValue[],
  fields: readonly TemplateFieldShape[],
): { field: string; message: string }[] {
  const seen = new Set<string>();
  return items.flatMap(({ at, ...item }) => {
    const field = fields.find((f) => f.id === item.fieldDefinitionId);
    if (!field) {
      return [
        {
          field: `${at}.fieldDefinitionId`,
          message: `${item.fieldDefinitionId} is not a field of the template`,
        },
      ];
    }
    if (seen.has(field.id))
      return [{ field: `${at}.fieldDefinitionId`, message: 'the field is given twice' }];
    seen.add(field.id);
    const checked = checkInitialValue(field, item.value);
    return checked.ok ? [] : [{ field: `${at}.value`, message: `${field.label}: ${checked.message}` }];
  });
}

/** Recipient types that fill no fields, and the field types a FormFiller (who does not sign) cannot fill. */
const FIELDLESS_TYPES: readonly RecipientType[] = ['Approver', 'Viewer'];
const SIGNATURE_FIELD_TYPES: readonly string[] = ['Signature', 'Initials', 'Company stamp'];

/**
 * Someone must be able to fill every field of a role (read-only text needs no one): an Approver or Viewer
 * may take a role with fields only beside a Signer or FormFiller who fills them; a FormFiller cannot take a
 * role that needs a signature. A Cc only receives copies, so any role is fine for them.
 */
function roleFieldProblems(
  recipients: { type: RecipientType; role?: { id: string; name: string } | undefined }[],
  fields: readonly TemplateFieldShape[],
): { field: string; message: string }[] {
  return recipients.flatMap(({ type, role }, index) => {
    if (!role) return [];
    const fillable = fields.filter((f) => f.roleId === role.id && f.type !== 'Read-only text');
    const filledByOthers = recipients.some(
      (other) => other.role?.id === role.id && (other.type === 'Signer' || other.type === 'FormFiller'),
    );
    if (FIELDLESS_TYPES.includes(type) && fillable.length > 0 && !filledByOthers) {
      return [
        {
          field: `recipients.${index}.type`,
          message: `${type === 'Approver' ? 'an' : 'a'} ${type} fills no fields, but role "${role.name}" has ${fillable.length} field(s) to fill ("${fillable[0]?.label}"…) and no Signer or FormFiller; give the role to a Signer or FormFiller`,
        },
      ];
    }
    const signing = fillable.filter((f) => SIGNATURE_FIELD_TYPES.includes(f.type));
    if (type === 'FormFiller' && signing.length > 0) {
      return [
        {
          field: `recipients.${index}.type`,
          message: `a FormFiller does not sign, but role "${role.name}" has a ${signing[0]?.type} field ("${signing[0]?.label}"); give the role to a Signer`,
        },
      ];
    }
    return [];
  });
}

/** A recipient the envelope waits for: an acting recipient whose template role is required. */
function requiredRecipient(type: RecipientType, roleRequired: boolean): boolean {
  return roleRequired && type !== 'Cc';
}

function duplicateOrders(recipients: { signingOrder: number; type: RecipientType }[]) {
  const seen = new Set<number>();
  return recipients.flatMap((recipient, index) => {
    if (!actsInRounds(recipient)) return [];
    if (seen.has(recipient.signingOrder)) {
      return [
        {
          field: `recipients.${index}.signingOrder`,
          message: `signingOrder ${recipient.signingOrder} is used twice; a Sequential envelope needs distinct orders (use GroupedRounds for parallel rounds)`,
        },
      ];
    }
    seen.add(recipient.signingOrder);
    return [];
  });
}
