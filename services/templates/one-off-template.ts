// The one-off template of an envelope created from an uploaded file (POST /api/v1/envelopes/from-file): the
// organization's stored PDF, the request's fields placed on it, and roles taken from the fields and the
// recipients. It is a template like any other for signing and finalization, with status `OneOff`: no
// template route lists or serves it, and no other envelope can be created from it. Made here, checked, and
// written only with its envelope (services/envelopes/create-envelope.ts), in the same transaction; the
// sandbox validates with it and writes nothing.
//
// Roles. Every role a field names is a role of the template, required: it needs an acting (non-Cc)
// recipient (else the error names the role's first field). A recipient whose roleName no field has is accepted when they fill no fields by their type
// (Approver, Viewer, Cc), as a template role without fields is: the role is added after the fields' roles,
// required when one of its recipients acts. A Signer or FormFiller must have a role some field has — nothing
// would be theirs to fill or sign — so their unknown roleName is refused naming the roles the fields have.
// Role names that differ only in case are refused, as in a template definition.
import type { z } from 'zod';
import { StoredFile } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import type { FileFieldInput } from '../../domain/envelope.ts';
import type { RecipientType } from '../../domain/vocabulary.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { InvalidRequest, NotFound } from '../errors.ts';
import { inspectPdf } from '../files/inspect-pdf.ts';
import { organizationClient } from '../files/inspection-pool.ts';
import { storedFileBytes } from '../files/stored-file-bytes.ts';
import { type TemplateRows, templateRows } from './create-template.ts';
import { type PlacementProblem, placementProblems } from './field-placement.ts';

/** Recipient types that fill no fields: they may take a role no field has. */
const FIELDLESS_TYPES: readonly RecipientType[] = ['Approver', 'Viewer', 'Cc'];

export interface OneOffTemplateInput {
  organizationId: string;
  fileId: string;
  /** The envelope's title, which names the template too. */
  title: string;
  fields: readonly z.output<typeof FileFieldInput>[];
  recipients: readonly { roleName: string; type: RecipientType }[];
}

export interface OneOffTemplate {
  rows: TemplateRows;
  /** The fields' prefilled values by the new field ids, with where the request gave each (`fields.<i>`). */
  initialValues: { fieldDefinitionId: string; value: unknown; at: string }[];
}

/**
 * Builds (without writing) the one-off template of an envelope from the organization's file `fileId` and the
 * request's fields and recipients. 404 when the file is not one of the organization's; 400 naming the field
 * or recipient for a field off its page or on a page the PDF lacks, and for roles as described above.
 */
export async function oneOffTemplate(
  ctx: DataContext & FilesContext,
  input: OneOffTemplateInput,
): Promise<OneOffTemplate> {
  const file = UUID_PATTERN.test(input.fileId)
    ? await ctx.em.findOne(StoredFile, {
        id: input.fileId,
        organizationId: input.organizationId,
        purgedAt: null,
      })
    : null;
  if (!file) throw new NotFound(`File ${input.fileId} was not found.`);
  if (file.contentType !== 'application/pdf') {
    throw new InvalidRequest(
      `File ${file.id} is not a PDF; upload the document with POST /api/v1/files/upload.`,
      [{ field: 'fileId', message: 'not a PDF document' }],
    );
  }
  // The page sizes in the space fields are placed in, from the inspection every stored PDF passed on upload
  // (a file stored before a check existed is refused now, naming fileId).
  const bytes = new Uint8Array(await storedFileBytes(ctx.files, file));
  const pdf = await inspectPdf(bytes, {
    maxBytes: bytes.byteLength,
    field: 'fileId',
    client: organizationClient(input.organizationId),
  });

  const roles = rolesOf(input.fields, input.recipients);
  const problems = [...placementProblems(input.fields, pdf.pages), ...roles.problems];
  if (problems.length > 0) {
    throw new InvalidRequest(`Invalid envelope: ${problems[0]?.field}: ${problems[0]?.message}`, problems);
  }
  const rows = templateRows({
    organizationId: input.organizationId,
    name: input.title,
    status: 'OneOff',
    fileId: file.id,
    pageCount: pdf.pageCount,
    roles: roles.roles,
    fields: input.fields,
    pages: pdf.pages,
  });
  return {
    rows,
    initialValues: input.fields.flatMap((field, index) =>
      field.value === undefined
        ? []
        : [
            {
              fieldDefinitionId: rows.fields[index]?.id as string,
              value: field.value,
              at: `fields.${index}`,
            },
          ],
    ),
  };
}

/** The template's roles (see the file's comment) and what is wrong with the request's role names. */
function rolesOf(
  fields: OneOffTemplateInput['fields'],
  recipients: OneOffTemplateInput['recipients'],
): { roles: { name: string; required: boolean }[]; problems: PlacementProblem[] } {
  const problems: PlacementProblem[] = [];
  /** Role names by their lower case: one spelling per role. */
  const spelling = new Map<string, string>();
  const fieldRoles: string[] = [];
  fields.forEach((field, index) => {
    const known = spelling.get(field.role.toLowerCase());
    if (known === undefined) {
      spelling.set(field.role.toLowerCase(), field.role);
      fieldRoles.push(field.role);
    } else if (known !== field.role) {
      problems.push({
        field: `fields.${index}.role`,
        message: `"${field.role}" and "${known}" differ only in case; spell a role the same way in every field`,
      });
    }
  });

  // Every role with fields needs an acting recipient; the request's error names the role's first field.
  for (const role of fieldRoles) {
    if (recipients.some((recipient) => recipient.roleName === role && recipient.type !== 'Cc')) continue;
    problems.push({
      field: `fields.${fields.findIndex((field) => field.role === role)}.role`,
      message:
        `no recipient acts in the role "${role}": every role with fields needs a recipient with that roleName ` +
        `who is not a Cc (recipients' roles: ${[...new Set(recipients.map((r) => r.roleName))].join(', ')})`,
    });
  }

  const fieldless: string[] = [];
  recipients.forEach((recipient, index) => {
    const name = recipient.roleName;
    if (fieldRoles.includes(name) || fieldless.includes(name)) return;
    const known = spelling.get(name.toLowerCase());
    if (known !== undefined) {
      problems.push({
        field: `recipients.${index}.roleName`,
        message: `"${name}" and the role "${known}" differ only in case; use "${known}"`,
      });
    } else if (FIELDLESS_TYPES.includes(recipient.type)) {
      spelling.set(name.toLowerCase(), name);
      fieldless.push(name);
    } else {
      problems.push({
        field: `recipients.${index}.roleName`,
        message:
          `no field has the role "${name}", and a ${recipient.type} needs fields of their role ` +
          `(roles of the fields: ${fieldRoles.length > 0 ? fieldRoles.join(', ') : 'none'}); only an Approver, Viewer or Cc may have a role without fields`,
      });
    }
  });

  return {
    roles: [
      ...fieldRoles.map((name) => ({ name, required: true })),
      ...fieldless.map((name) => ({
        name,
        // A role only Cc recipients have waits for no one.
        required: recipients.some((recipient) => recipient.roleName === name && recipient.type !== 'Cc'),
      })),
    ],
    problems,
  };
}
