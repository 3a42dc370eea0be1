// What a credential may reach, in the permissions of the users who hand it out (issue 30; docs/integrations.md
// "What a key may be given", docs/webhooks.md "What an endpoint may receive"). Nobody grants a credential more
// than they hold: an API key's scope or a webhook endpoint's event needs the permissions below, checked when a
// user creates or changes one (403 naming the scope or the event and the permissions) and again at every use
// against the user who last changed it (the bearer check, the queueing of deliveries). This table is the one
// place: the checks, the pages, the docs and the tests derive from it. Pure and without value imports, so the
// web app uses it too.
import type { Permission } from './permissions.ts';
import type { Scope } from './scopes.ts';
import type { WebhookEventType } from './vocabulary.ts';

/**
 * The permissions each public-API scope needs, and why: the application route that shows or does the same. A
 * key acts on the whole organization, so reading envelopes needs `documents:read_all`, not only one's own.
 */
export const SCOPE_PERMISSIONS: Record<Scope, readonly Permission[]> = {
  // The organization's name, plan and languages: what every signed-in user sees (GET /api/auth/me).
  'organization.read': [],
  // Usage, quota and plan (GET /api/billing/summary) and the request and delivery counters of the keys and
  // endpoints (GET /api/integrations/diagnostics).
  'usage.read': ['billing:read', 'integrations:read'],
  'templates.read': ['templates:read'],
  // Source files are uploaded to send them (POST /api/documents/files).
  'files.write': ['documents:manage'],
  // Every envelope of the organization, its recipients, final PDF and audit trail.
  'envelopes.read': ['documents:read', 'documents:read_all'],
  // Creating, sending, cancelling, reminding and extending any envelope of the organization, and reading the
  // envelope each answers with: in the application, documents:manage acts only on the envelopes one sees.
  'envelopes.write': ['documents:read', 'documents:read_all', 'documents:manage'],
  // Webhook endpoints, their delivery records, test deliveries and replays (an endpoint's events need the
  // scopes of EVENT_SCOPE besides, on the token that saves it).
  'webhooks.manage': ['integrations:read', 'integrations:manage'],
};

/**
 * The scope whose permissions each webhook event needs. Every event tells of an envelope of the organization
 * (its id, status and external reference, a recipient's progress, a final PDF to download): an endpoint
 * receives them for every envelope, as a key with `envelopes.read` reads them.
 */
export const EVENT_SCOPE: Record<WebhookEventType, Scope> = {
  'envelope.created': 'envelopes.read',
  'envelope.sent': 'envelopes.read',
  'recipient.opened': 'envelopes.read',
  'recipient.authentication_verified': 'envelopes.read',
  'recipient.authentication_failed': 'envelopes.read',
  'recipient.completed': 'envelopes.read',
  'recipient.declined': 'envelopes.read',
  'envelope.completed': 'envelopes.read',
  'envelope.cancelled': 'envelopes.read',
  'envelope.expired': 'envelopes.read',
  'envelope.delivery_failed': 'envelopes.read',
  'document.final_pdf_ready': 'envelopes.read',
  'recipient.corrected': 'envelopes.read',
};

/** The permissions a webhook event needs: its scope's. */
export function eventPermissions(event: WebhookEventType): readonly Permission[] {
  return SCOPE_PERMISSIONS[EVENT_SCOPE[event]];
}

/** The events an endpoint receives: its list, or every event when the list is empty. */
export function subscribedEvents(eventTypes: readonly WebhookEventType[]): readonly WebhookEventType[] {
  return eventTypes.length === 0 ? (Object.keys(EVENT_SCOPE) as WebhookEventType[]) : eventTypes;
}

/** The permissions of `needed` that `held` lacks, in the table's order. */
export function lackedPermissions(needed: readonly Permission[], held: readonly Permission[]): Permission[] {
  return needed.filter((permission) => !held.includes(permission));
}

/** One scope or event that `held` cannot grant, with the permissions it lacks. */
export interface Ungrantable<T extends string> {
  item: T;
  lacking: Permission[];
}

/** The scopes `held` cannot grant (empty: all of them), in the order given. */
export function ungrantableScopes(
  scopes: readonly Scope[],
  held: readonly Permission[],
): Ungrantable<Scope>[] {
  return scopes.flatMap((item) => {
    const lacking = lackedPermissions(SCOPE_PERMISSIONS[item], held);
    return lacking.length > 0 ? [{ item, lacking }] : [];
  });
}

/** The events an endpoint with `eventTypes` receives that `held` cannot grant (empty list: every event). */
export function ungrantableEvents(
  eventTypes: readonly WebhookEventType[],
  held: readonly Permission[],
): Ungrantable<WebhookEventType>[] {
  return subscribedEvents(eventTypes).flatMap((item) => {
    const lacking = lackedPermissions(eventPermissions(item), held);
    return lacking.length > 0 ? [{ item, lacking }] : [];
  });
}

/**
 * The user who last changed a credential, as the checks at use read them: whether they are still active
 * (neither deactivated nor deleted) and their role's permissions now. No changer (null): the operator made it.
 */
export interface CredentialChanger {
  active: boolean;
  permissions: readonly Permission[];
}

/** Why a scope or an event of a credential is suspended. */
export type SuspensionReason = 'user_inactive' | 'permission_missing';

export interface Suspended<T extends string> {
  item: T;
  reason: SuspensionReason;
  /** The permissions it needs that its last changer does not hold (all it needs when they are inactive). */
  lacking: Permission[];
}

/**
 * The scopes of a key that do not work now: all of them when its last changer is deactivated or deleted, else
 * those needing a permission the changer's role no longer has. None for a key the operator made.
 */
export function suspendedScopes(
  scopes: readonly Scope[],
  changer: CredentialChanger | null,
): Suspended<Scope>[] {
  if (!changer) return [];
  if (!changer.active) {
    return scopes.map((item) => ({ item, reason: 'user_inactive', lacking: [...SCOPE_PERMISSIONS[item]] }));
  }
  return ungrantableScopes(scopes, changer.permissions).map(({ item, lacking }) => ({
    item,
    reason: 'permission_missing',
    lacking,
  }));
}

/** The events an endpoint does not receive now, by the same rule (empty list: every event is looked at). */
export function suspendedEvents(
  eventTypes: readonly WebhookEventType[],
  changer: CredentialChanger | null,
): Suspended<WebhookEventType>[] {
  if (!changer) return [];
  if (!changer.active) {
    return subscribedEvents(eventTypes).map((item) => ({
      item,
      reason: 'user_inactive',
      lacking: [...eventPermissions(item)],
    }));
  }
  return ungrantableEvents(eventTypes, changer.permissions).map(({ item, lacking }) => ({
    item,
    reason: 'permission_missing',
    lacking,
  }));
}

const code = (names: readonly string[]) =>
  names.length === 0 ? '—' : names.map((name) => `\`${name}\``).join(', ');

/** The scope table as docs/integrations.md shows it (`npm run docs:credentials` writes it there). */
export function scopePermissionsMarkdown(): string {
  return [
    '| scope | the user who gives it (and later, the key’s last changer) must hold |',
    '|---|---|',
    ...(Object.keys(SCOPE_PERMISSIONS) as Scope[]).map(
      (scope) => `| \`${scope}\` | ${code(SCOPE_PERMISSIONS[scope])} |`,
    ),
  ].join('\n');
}

/** The event table as docs/webhooks.md shows it (`npm run docs:credentials` writes it there). */
export function eventPermissionsMarkdown(): string {
  return [
    '| event | as the scope | the user who subscribes an endpoint to it (and later, its last changer) must hold |',
    '|---|---|---|',
    ...(Object.keys(EVENT_SCOPE) as WebhookEventType[]).map(
      (event) => `| \`${event}\` | \`${EVENT_SCOPE[event]}\` | ${code(eventPermissions(event))} |`,
    ),
  ].join('\n');
}
