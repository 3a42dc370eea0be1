// The recipient's fields (their template role's) in template order, each with its saved or prefilled value,
// in one statement; with them, when asked, the fields other recipients filled before completing; and what
// counts as filled.
import { TemplateField } from '../../db/entities/index.ts';
import { prepared, runPrepared } from '../../db/prepared.ts';
import type { DataContext } from '../context.ts';
import type { SigningSession } from './signing-session.ts';

/** The role's fields in template order with the envelope's values. */
const SIGNER_FIELDS = prepared(
  'signer_fields',
  `select row_to_json(f) as field, v.value as value
     from template_field f
     left join envelope_field_value v on v.field_id = f.id and v.envelope_id = ?
    where f.template_id = ? and f.role_id = ?
    order by f.position`,
);

/**
 * The same, then (`filled_by` set) the fields of every other recipient of the envelope who has completed, with
 * the values they left: one statement, so the view and a save read no more than before.
 */
const SIGNING_FIELDS = prepared(
  'signing_fields',
  `select * from (
     select row_to_json(f) as field, v.value as value, null :: text as filled_by, f.position as position
       from template_field f
       left join envelope_field_value v on v.field_id = f.id and v.envelope_id = ?
      where f.template_id = ? and f.role_id = ?
     union all
     select row_to_json(f), v.value, r.role_name, f.position
       from recipient r
       join template_field f on f.template_id = ? and f.role_id = r.role_id
       join envelope_field_value v on v.field_id = f.id and v.envelope_id = r.envelope_id
      where r.envelope_id = ? and r.id <> ? and r.status = 'Completed'
   ) fields
   order by filled_by nulls first, position`,
);

export interface SignerField {
  field: TemplateField;
  value: unknown;
}

/** A field of another recipient who has completed, with its value and that recipient's role. */
export interface OthersField extends SignerField {
  filledBy: string;
}

/** Fields the signer never fills, so they never count as awaiting the signer. */
const NOT_SIGNER_FILLED = ['Read-only text'];

export async function loadSignerFields(
  ctx: DataContext,
  session: Pick<SigningSession, 'envelope' | 'recipient'>,
): Promise<SignerField[]> {
  const { envelope, recipient } = session;
  if (!envelope.templateId || !recipient.roleId) return [];
  const rows = await runPrepared<{ field: Record<string, unknown>; value: unknown }>(ctx.em, SIGNER_FIELDS, [
    envelope.id,
    envelope.templateId,
    recipient.roleId,
  ]);
  return rows.map((row) => ({
    field: ctx.em.map(TemplateField, row.field as never),
    value: row.value ?? null,
  }));
}

/** The recipient's fields and those other recipients filled before completing, in one statement. */
export async function loadSigningFields(
  ctx: DataContext,
  session: Pick<SigningSession, 'envelope' | 'recipient'>,
): Promise<{ own: SignerField[]; others: OthersField[] }> {
  const { envelope, recipient } = session;
  if (!envelope.templateId || !recipient.roleId) return { own: [], others: [] };
  const rows = await runPrepared<{
    field: Record<string, unknown>;
    value: unknown;
    filled_by: string | null;
  }>(ctx.em, SIGNING_FIELDS, [
    envelope.id,
    envelope.templateId,
    recipient.roleId,
    envelope.templateId,
    envelope.id,
    recipient.id,
  ]);
  const own: SignerField[] = [];
  const others: OthersField[] = [];
  for (const row of rows) {
    const field = ctx.em.map(TemplateField, row.field as never);
    if (row.filled_by === null) own.push({ field, value: row.value ?? null });
    else others.push({ field, value: row.value ?? null, filledBy: row.filled_by });
  }
  return { own, others };
}

export function isFilled(value: unknown): boolean {
  return value !== null && value !== undefined && value !== '' && value !== false;
}

/** Required fields the signer still has to fill (read-only text is never theirs to fill). */
export function missingRequired(fields: SignerField[]): SignerField[] {
  return fields.filter(
    ({ field, value }) => field.required && !NOT_SIGNER_FILLED.includes(field.type) && !isFilled(value),
  );
}
