// The recipient's fields (their template role's) in template order, each with its saved or prefilled value,
// in one statement; and what counts as filled.
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

export interface SignerField {
  field: TemplateField;
  value: unknown;
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

export function isFilled(value: unknown): boolean {
  return value !== null && value !== undefined && value !== '' && value !== false;
}

/** Required fields the signer still has to fill (read-only text is never theirs to fill). */
export function missingRequired(fields: SignerField[]): SignerField[] {
  return fields.filter(
    ({ field, value }) => field.required && !NOT_SIGNER_FILLED.includes(field.type) && !isFilled(value),
  );
}
