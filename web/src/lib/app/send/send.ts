// What the send page (/app/send) and the bulk send page (/app/send/bulk) share: the organization's sending
// defaults, the published templates to choose from (`?template=<id>` chooses one), the deadline as a date
// where the user is, and — for the send page and a Draft's edit page — a recipient as the page edits it and as
// the request sends it.
import type {
  AuthenticationMethod,
  DeliveryChannel,
  FieldType,
  RecipientType,
  WorkflowType,
} from '../../../../../domain/vocabulary.ts';
import type { TemplateSummary } from '../templates/builder.svelte.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Field types a sender may prefill (the others are the signer's: signatures, stamps, uploads). */
export const PREFILLABLE: readonly FieldType[] = [
  'Full name',
  'Text',
  'Long text',
  'Date',
  'Email',
  'Phone',
  'ID number',
  'Checkbox',
  'Radio',
  'Dropdown',
  'Read-only text',
];

/** A field the sender may give a value to, by the field's own id (a template's) or key (a one-off's). */
export interface PrefillField {
  id: string;
  type: FieldType;
  label: string;
  role: string;
  options: string[];
  /** The server's refusal of its value. */
  error?: string | undefined;
}

/** The one-off PDF's limit (domain/template-builder.ts, TEMPLATE_LIMITS.pdfBytes). */
export const MAX_PDF_BYTES = 25 * 1024 * 1024;

/** The templates a sender may send: those with a published version. */
export function publishedOf(templates: readonly TemplateSummary[]): TemplateSummary[] {
  return templates.filter((item) => item.published !== null);
}

/** The published version the address asks for (`?template=` names the template or its version), if any. */
export function wantedVersion(
  templates: readonly TemplateSummary[],
  wanted: string | null,
): string | undefined {
  if (!wanted) return undefined;
  return templates.find((item) => item.id === wanted || item.published?.id === wanted)?.published?.id;
}

/** The day `days` from now where the user is (`2026-12-24`), for a date field. */
export function dateInDays(days: number): string {
  return dayOf(new Date(Date.now() + days * DAY_MS).toISOString());
}

/** The day of an instant where the user is (`2026-12-24`), for a date field: a stored deadline. */
export function dayOf(iso: string): string {
  const date = new Date(iso);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The deadline of a date field: the end of that day (23:59) where the user is; undefined without a date. */
export function deadlineOf(day: string): string | undefined {
  if (!day) return undefined;
  const at = new Date(`${day}T23:59:00`);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** A recipient as the send page edits it (one per role). */
export interface RecipientDraft {
  key: string;
  role: string;
  fullName: string;
  email: string;
  phone: string;
  type: RecipientType;
  channel: DeliveryChannel;
  authentication: AuthenticationMethod;
  language: string;
  round: number;
}

let counter = 0;

export function newRecipient(
  role: string,
  type: RecipientType,
  round: number,
  authentication: AuthenticationMethod,
): RecipientDraft {
  counter += 1;
  return {
    key: `recipient-${counter}`,
    role,
    fullName: '',
    email: '',
    phone: '',
    type,
    channel: 'Email',
    authentication,
    language: '',
    round,
  };
}

/** A recipient a Draft holds, as the edit page edits it (its round: its signing order). */
export function recipientDraftOf(recipient: {
  roleName: string;
  fullName: string;
  email: string | null;
  phone: string | null;
  type: RecipientType;
  deliveryChannel: DeliveryChannel;
  authenticationMethod: AuthenticationMethod;
  language: string | null;
  signingOrder: number;
}): RecipientDraft {
  return {
    ...newRecipient(
      recipient.roleName,
      recipient.type,
      recipient.signingOrder,
      recipient.authenticationMethod,
    ),
    fullName: recipient.fullName,
    email: recipient.email ?? '',
    phone: recipient.phone ?? '',
    channel: recipient.deliveryChannel,
    language: recipient.language ?? '',
  };
}

/** A recipient's order: its place (Sequential), its round (GroupedRounds), or all at once (Parallel). */
function signingOrderOf(workflow: WorkflowType, recipient: RecipientDraft, index: number): number {
  if (workflow === 'Sequential') return index + 1;
  if (workflow === 'GroupedRounds') return recipient.round;
  return 1;
}

/** The recipients as the request sends them (a phone without the spaces and dashes people type). */
export function recipientBodies(workflow: WorkflowType, recipients: readonly RecipientDraft[]) {
  return recipients.map((recipient, index) => {
    const phone = recipient.phone.replace(/[\s().-]/g, '');
    return {
      roleName: recipient.role,
      fullName: recipient.fullName,
      ...(recipient.email.trim() ? { email: recipient.email.trim() } : {}),
      ...(phone ? { phone } : {}),
      type: recipient.type,
      deliveryChannel: recipient.channel,
      authenticationMethod: recipient.authentication,
      language: recipient.language || null,
      signingOrder: signingOrderOf(workflow, recipient, index),
    };
  });
}

/** A recipient's fields the send page shows beside their input, as the server names them. */
export const RECIPIENT_FIELDS = [
  'fullName',
  'email',
  'phone',
  'type',
  'language',
  'roleName',
  'signingOrder',
];

/** A one-off PDF's bytes as base64, for its upload. */
export function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  }
  return btoa(binary);
}
