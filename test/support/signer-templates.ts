// The templates the signer page's browser tests send (test/e2e/signer-page*.test.ts), published for the
// harness's integrator (signer-pages.ts): every plain field type for two signers, signatures and uploads, rows for
// the right-to-left order, and the approve / view roles. A Date field's format is written after publishing, as
// the template definition's input does not take it.
import { TemplateField } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import type { ApiHarness, Integrator } from './api.ts';

const box = { page: 1, width: 150, height: 20 };
export const TERMS = 'Payment within 30 days of the invoice.';

/** Every plain field type for the Client, one field for the Provider; the Start date is written DD/MM/YYYY. */
const PLAIN_TEMPLATE = {
  name: 'Plain fields template',
  roles: [
    { name: 'Client', required: true },
    { name: 'Provider', required: true },
  ],
  fields: [
    { type: 'Full name', role: 'Client', label: 'Client name', x: 40, y: 40, required: true, ...box },
    { type: 'Text', role: 'Client', label: 'Company', x: 40, y: 70, ...box },
    { type: 'Long text', role: 'Client', label: 'Notes', x: 40, y: 100, ...box, height: 60 },
    { type: 'Date', role: 'Client', label: 'Start date', x: 40, y: 170, required: true, ...box },
    { type: 'Email', role: 'Client', label: 'Client email', x: 40, y: 200, ...box },
    { type: 'Phone', role: 'Client', label: 'Client phone', x: 40, y: 230, ...box },
    { type: 'ID number', role: 'Client', label: 'Client ID', x: 40, y: 260, ...box },
    { type: 'Checkbox', role: 'Client', label: 'Agree to terms', x: 40, y: 290, ...box, width: 20 },
    { type: 'Radio', role: 'Client', label: 'Plan', x: 40, y: 320, ...box, options: ['Basic', 'Pro'] },
    { type: 'Dropdown', role: 'Client', label: 'City', x: 40, y: 350, ...box, options: ['Haifa', 'Eilat'] },
    { type: 'Read-only text', role: 'Client', label: 'Terms', x: 40, y: 380, ...box },
    { type: 'Full name', role: 'Provider', label: 'Provider name', x: 300, y: 40, required: true, ...box },
  ],
};

/**
 * Three signature fields named only by their type (as the builder names a field nobody renamed), initials, a
 * stamp and two uploads: the signer sees "Signature 1…3" in reading order, in the page's language.
 */
const SIGNATURE_TEMPLATE = {
  name: 'Signature and uploads template',
  roles: [{ name: 'Client', required: true }],
  fields: [
    { type: 'Full name', role: 'Client', label: 'Client name', x: 40, y: 40, required: true, ...box },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Signature 1',
      x: 40,
      y: 80,
      required: true,
      ...box,
      height: 50,
    },
    { type: 'Initials', role: 'Client', label: 'Initials', x: 220, y: 80, required: true, ...box, width: 60 },
    { type: 'Company stamp', role: 'Client', label: 'Stamp', x: 300, y: 80, ...box, width: 80, height: 60 },
    { type: 'File upload', role: 'Client', label: 'Contract copy', x: 40, y: 160, required: true, ...box },
    { type: 'Image upload', role: 'Client', label: 'Photo ID', x: 40, y: 200, ...box, height: 80 },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Signature 2',
      x: 40,
      y: 300,
      required: true,
      ...box,
      height: 50,
    },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Signature',
      x: 300,
      y: 300,
      required: true,
      ...box,
      height: 50,
    },
  ],
};

/** One row of three signatures and one of three texts, for the right-to-left order, and a DD/MM/YYYY date. */
const ROW_TEMPLATE = {
  name: 'Rows template',
  roles: [{ name: 'Client', required: true }],
  fields: [
    { type: 'Text', role: 'Client', label: 'Text 1', x: 40, y: 60, ...box, width: 140 },
    { type: 'Text', role: 'Client', label: 'Text 2', x: 220, y: 60, ...box, width: 140 },
    { type: 'Text', role: 'Client', label: 'Text 3', x: 400, y: 60, ...box, width: 140 },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Signature 1',
      x: 40,
      y: 140,
      required: true,
      ...box,
      height: 50,
    },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Signature 2',
      x: 220,
      y: 141,
      required: true,
      ...box,
      height: 50,
    },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Signature 3',
      x: 400,
      y: 140,
      required: true,
      ...box,
      height: 50,
    },
    { type: 'Date', role: 'Client', label: 'Date 1', x: 40, y: 240, required: true, ...box, width: 100 },
  ],
};

const REVIEW_TEMPLATE = {
  name: 'Review template',
  roles: [
    { name: 'Approval', required: true },
    { name: 'Viewing', required: true },
    { name: 'Client', required: true },
  ],
  fields: [{ type: 'Full name', role: 'Client', label: 'Client name', x: 40, y: 40, required: true, ...box }],
};

export interface SignerTemplates {
  templates: { plain: string; signatures: string; rows: string; review: string };
  /** The plain template's Read-only text field, which the sender fills with TERMS. */
  termsFieldId: string;
}

async function publish(
  harness: ApiHarness,
  acme: Integrator,
  definition: object,
  title: string,
): Promise<string> {
  const template = await createTemplate(harness.ctx, {
    organizationId: acme.organizationId,
    pdf: await buildDemoPdf(title),
    filename: `${title}.pdf`,
    definition: definition as never,
    publish: true,
  });
  return template.id;
}

/** Writes a Date field's format, which the template definition's input does not take. */
async function dateFormat(harness: ApiHarness, templateId: string, label: string, format: string) {
  await harness.ctx.orm.em
    .fork()
    .nativeUpdate(
      TemplateField,
      { templateId, label },
      { properties: { dateFormat: format as 'DD/MM/YYYY' } },
    );
}

/** Publishes every template of the signer page's tests for the integrator. */
export async function publishSignerTemplates(
  harness: ApiHarness,
  acme: Integrator,
): Promise<SignerTemplates> {
  const plain = await publish(harness, acme, PLAIN_TEMPLATE, 'Plain agreement');
  await dateFormat(harness, plain, 'Start date', 'DD/MM/YYYY');
  const rows = await publish(harness, acme, ROW_TEMPLATE, 'Rows agreement');
  await dateFormat(harness, rows, 'Date 1', 'DD/MM/YYYY');
  const terms = await harness.ctx.orm.em
    .fork()
    .findOneOrFail(TemplateField, { templateId: plain, label: 'Terms' });
  return {
    templates: {
      plain,
      signatures: await publish(harness, acme, SIGNATURE_TEMPLATE, 'Signature agreement'),
      rows,
      review: await publish(harness, acme, REVIEW_TEMPLATE, 'Review'),
    },
    termsFieldId: terms.id,
  };
}
