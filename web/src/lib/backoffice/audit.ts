// The backoffice audit log in words (docs/backoffice.md, "Audit log"): each action's name, who did it, what
// it was done to, and its details summarized — never a raw session id; a secure-signature policy's change as
// each field with its value before and after. An action this page does not know yet (a later part of the
// backoffice) shows its code and its details as they are.
import type { ListedEvent } from '$lib/ui/events';
import { isolate } from '$lib/ui/format';
import type { AuditEvent } from './types.ts';

type Translate = (key: string, options?: { values?: Record<string, string | number> }) => string;

export const AUDIT_ACTION_KEYS: Record<string, string> = {
  'platform_admin.created': 'backoffice.audit.action.adminCreated',
  'platform_admin.removed': 'backoffice.audit.action.adminRemoved',
  'sign_in.code_sent': 'backoffice.audit.action.codeSent',
  'sign_in.password_refused': 'backoffice.audit.action.passwordRefused',
  'sign_in.code_refused': 'backoffice.audit.action.codeRefused',
  'sign_in.succeeded': 'backoffice.audit.action.signedIn',
  sign_out: 'backoffice.audit.action.signedOut',
  'ip_allowlist.entry_added': 'backoffice.audit.action.entryAdded',
  'ip_allowlist.entry_changed': 'backoffice.audit.action.entryChanged',
  'ip_allowlist.entry_removed': 'backoffice.audit.action.entryRemoved',
  'allowed_domain.created': 'backoffice.audit.action.domainAdded',
  'allowed_domain.changed': 'backoffice.audit.action.domainChanged',
  'allowed_domain.removed': 'backoffice.audit.action.domainRemoved',
  'notification_template.updated': 'backoffice.audit.action.templateUpdated',
  'notification_template.reset': 'backoffice.audit.action.templateReset',
  'organization.updated': 'backoffice.audit.action.organizationUpdated',
  'organization.deleted': 'backoffice.audit.action.organizationDeleted',
  'organization.credits_granted': 'backoffice.audit.action.creditsGranted',
  'organization.secure_signature_policy.updated': 'backoffice.audit.action.secureSignaturePolicyUpdated',
  'provider.smtp.updated': 'backoffice.audit.action.smtpUpdated',
  'provider.sms.updated': 'backoffice.audit.action.smsUpdated',
  'provider.whatsapp.updated': 'backoffice.audit.action.whatsappUpdated',
  'provider.smtp.tested': 'backoffice.audit.action.smtpTested',
  'provider.sms.tested': 'backoffice.audit.action.smsTested',
  'provider.whatsapp.tested': 'backoffice.audit.action.whatsappTested',
};

export const ACTOR_KIND_KEYS: Record<AuditEvent['actor']['kind'], string> = {
  platform_admin: 'backoffice.audit.actor.admin',
  operator_cli: 'backoffice.audit.actor.operator',
  visitor: 'backoffice.audit.actor.visitor',
};

const CODE_REFUSAL_KEYS: Record<string, string> = {
  wrong_code: 'backoffice.audit.reason.wrongCode',
  expired: 'backoffice.audit.reason.expired',
  used_up: 'backoffice.audit.reason.usedUp',
  already_used: 'backoffice.audit.reason.alreadyUsed',
  no_code: 'backoffice.audit.reason.noCode',
};

/** The action in words, or its code for an action this page does not know. */
export function actionText(event: AuditEvent, t: Translate): string {
  const key = AUDIT_ACTION_KEYS[event.action];
  return key ? t(key) : event.action;
}

function text(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.map(text).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** An allowlist entry as the log keeps it: `{ entry, description }`. */
function entryOf(value: unknown): { entry: string; description: string | null } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { entry, description } = value as Record<string, unknown>;
  if (typeof entry !== 'string') return undefined;
  return { entry, description: typeof description === 'string' && description ? description : null };
}

const entryText = (entry: { entry: string; description: string | null }) =>
  entry.description ? `${entry.entry} (${entry.description})` : entry.entry;

/** What the action was done to: an administrator (name and address), an allowlist entry, a domain. */
export type AuditTarget =
  | { kind: 'administrator'; fullName: string; email: string }
  | { kind: 'text'; text: string }
  | { kind: 'none' };

export function targetOf(event: AuditEvent): AuditTarget {
  const details = event.details;
  switch (event.action) {
    case 'platform_admin.created':
    case 'platform_admin.removed':
      return { kind: 'administrator', fullName: text(details.fullName), email: text(details.email) };
    case 'ip_allowlist.entry_added':
    case 'ip_allowlist.entry_removed':
      return { kind: 'text', text: text(details.entry) };
    case 'ip_allowlist.entry_changed':
      return { kind: 'text', text: entryOf(details.after)?.entry ?? text(details.after) };
    case 'allowed_domain.created':
    case 'allowed_domain.removed':
      return { kind: 'text', text: text(details.domain) };
    case 'allowed_domain.changed':
      return { kind: 'text', text: text(details.after) };
    case 'notification_template.updated':
    case 'notification_template.reset':
      return { kind: 'text', text: `${text(details.kind)} (${text(details.language)})` };
    default:
      return { kind: 'none' };
  }
}

/** The details summarized in words; empty when there is nothing more to say than the action and target. */
export function detailsText(event: AuditEvent, t: Translate, formatTime: (iso: string) => string): string {
  const details = event.details;
  switch (event.action) {
    case 'platform_admin.created':
    case 'platform_admin.removed':
    case 'allowed_domain.created':
    case 'allowed_domain.removed':
    case 'sign_in.succeeded':
    case 'sign_out':
      return '';
    case 'sign_in.code_sent':
      return typeof details.expiresAt === 'string'
        ? t('backoffice.audit.detail.validUntil', { values: { time: formatTime(details.expiresAt) } })
        : '';
    case 'sign_in.password_refused': {
      const parts = [
        t('backoffice.audit.detail.failures', { values: { count: Number(details.failures) || 0 } }),
      ];
      if (details.knownAddress === false) parts.push(t('backoffice.audit.detail.unknownAddress'));
      return parts.join(' · ');
    }
    case 'sign_in.code_refused': {
      const key = CODE_REFUSAL_KEYS[String(details.reason)];
      const parts = [key ? t(key) : text(details.reason)];
      if (typeof details.failures === 'number') {
        parts.push(t('backoffice.audit.detail.failures', { values: { count: details.failures } }));
      }
      return parts.join(' · ');
    }
    case 'ip_allowlist.entry_added':
    case 'ip_allowlist.entry_removed':
      return typeof details.description === 'string' && details.description
        ? t('backoffice.audit.detail.description', { values: { description: isolate(details.description) } })
        : '';
    case 'ip_allowlist.entry_changed': {
      const before = entryOf(details.before);
      const after = entryOf(details.after);
      return before && after ? `${entryText(before)} → ${entryText(after)}` : '';
    }
    case 'allowed_domain.changed':
      return `${text(details.before)} → ${text(details.after)}`;
    case 'notification_template.reset':
      return '';
    case 'notification_template.updated':
      // The texts themselves are long: the log names which changed.
      return Array.isArray(details.changed) ? details.changed.map(text).join(', ') : '';
    case 'organization.secure_signature_policy.updated':
      return policyChanges(details);
    default:
      return Object.entries(details)
        .map(([name, value]) => `${name}: ${text(value)}`)
        .join(' · ');
  }
}

/** A field of a secure-signature policy as the log keeps it (`level`, `bounds.allowedLevels`). */
function policyValue(side: unknown, field: string): unknown {
  let value: unknown = side;
  for (const part of field.split('.')) {
    value =
      typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value;
}

/** Each changed field of a secure-signature policy with its value before and after: `level: B-B → B-T`. */
function policyChanges(details: Record<string, unknown>): string {
  if (!Array.isArray(details.changed)) return '';
  return details.changed
    .map((field) => {
      const name = text(field);
      return `${name}: ${text(policyValue(details.before, name))} → ${text(policyValue(details.after, name))}`;
    })
    .join(' · ');
}

/** An event as the kit's EventList shows it: when, the action, who, to what, from where, the details. */
export function listedEvent(
  event: AuditEvent,
  t: Translate,
  formatTime: (iso: string) => string,
): ListedEvent {
  const target = targetOf(event);
  const details = detailsText(event, t, formatTime);
  return {
    id: event.id,
    kind: event.action,
    at: event.occurredAt,
    what: actionText(event, t),
    actor: { name: t(ACTOR_KIND_KEYS[event.actor.kind]), email: event.actor.email },
    target:
      target.kind === 'administrator'
        ? { text: target.fullName, email: target.email }
        : target.kind === 'text'
          ? { text: target.text, ltr: true }
          : null,
    address: event.ipAddress,
    details: details ? [{ value: details }] : [],
  };
}
