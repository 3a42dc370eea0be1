// The security log in words (docs/administration.md, "Security log"): each event of
// `organization.securityLog` as the kit's EventList shows it — what happened, who did it, whom it concerns, and
// its details as sentences in the page's language ("Signed in with a password", "API key ‘ERP’ (sigil_…)
// created with scopes …"), never a raw key or id. Names people typed are isolated, so a Hebrew team name keeps
// its place in an English sentence and the reverse. A detail this page does not know yet is said generically.

import { BUILT_IN_ROLE_NAMES } from '../../../../../domain/permissions.ts';
import type { ListedEvent } from '../../ui/events.ts';
import { isolate } from '../../ui/format.ts';
import { BUILT_IN_ROLE_KEYS, permissionNames, SECURITY_EVENT_KEYS, USER_STATUS_KEYS } from '../labels.ts';
import { LEVEL_NAME_KEYS, type PadesLevel } from '../secure-signatures.ts';
import type { SecurityEventView, UserStatus } from '../types.ts';

type Translate = (key: string, options?: { values?: Record<string, string | number> }) => string;
type Details = Record<string, unknown>;

const D = 'admin.securityLog.detail.';

const SIGN_IN_KEYS: Record<string, string> = {
  password: `${D}signedInPassword`,
  invitation: `${D}signedInInvitation`,
  totp: `${D}signedInTotp`,
  backup_code: `${D}signedInBackupCode`,
  passkey: `${D}signedInPasskey`,
};

const FAILURE_KEYS: Record<string, string> = {
  wrong_password: `${D}failedWrongPassword`,
  refused: `${D}failedRefused`,
  deactivated: `${D}failedDeactivated`,
  invitation_not_accepted: `${D}failedNotAccepted`,
};

/** A second factor that was wrong, by its method. */
const WRONG_FACTOR_KEYS: Record<string, string> = {
  totp: `${D}wrongTotp`,
  backup_code: `${D}wrongBackupCode`,
  passkey: `${D}wrongPasskey`,
  password: `${D}wrongPassword`,
};

/** How a change of two-step verification was confirmed. */
const CONFIRMED_KEYS: Record<string, string> = {
  totp: `${D}confirmedTotp`,
  backup_code: `${D}confirmedBackupCode`,
};

/** The settings page's names of its fields (`settings.updated` lists the changed ones). */
const SETTING_KEYS: Record<string, string> = {
  senderDisplayName: 'admin.settings.senderDisplayName',
  replyToEmail: 'admin.settings.replyToEmail',
  emailFooter: 'admin.settings.emailFooter',
  mfaRequired: 'admin.settings.mfaRequired',
  sessionTimeoutMinutes: 'admin.settings.sessionTimeout',
  defaultAuthenticationMethod: 'admin.settings.defaultAuthentication',
  defaultExpirationDays: 'admin.settings.defaultExpiration',
  consentText: 'admin.settings.consentText',
  privacyNotice: 'admin.settings.privacyNotice',
  'retention.completedDays': 'admin.settings.retentionCompleted',
  'retention.unfinishedDays': 'admin.settings.retentionUnfinished',
  'retention.deletedDays': 'admin.settings.retentionDeleted',
};

/** The fields of `user.profile_updated`, in the profile form's words. */
const PROFILE_FIELD_KEYS: Record<string, string> = {
  fullName: 'account.fullName',
  phone: 'contacts.phone',
};

/** What platform staff did (`support.accessed`'s `action`). */
const SUPPORT_ACTION_KEYS: Record<string, string> = {
  'envelope.viewed': `${D}supportViewed`,
  'envelope.contents_viewed': `${D}supportContentsViewed`,
  'organization.users_viewed': `${D}supportViewedUsers`,
  'organization.viewed': `${D}supportViewedOrganization`,
  'organization.integrations_viewed': `${D}supportViewedIntegrations`,
  'envelope.resume-projection': `${D}supportResumedProjection`,
  'envelope.retry-final-pdf': `${D}supportRetriedFinalPdf`,
  'envelope.reissue-links': `${D}supportReissuedLinks`,
  'envelope.verify-audit': `${D}supportVerifiedAudit`,
};

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const count = (value: unknown): number => (typeof value === 'number' ? value : 0);
const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
/** A `{ from, to }` change as the log keeps it (names, or null for none). */
const change = (value: unknown): { from: unknown; to: unknown } | undefined =>
  typeof value === 'object' && value !== null && 'to' in value
    ? (value as { from: unknown; to: unknown })
    : undefined;

export class SecurityEventWords {
  readonly #t: Translate;
  readonly #time: (iso: string) => string;

  constructor(t: Translate, formatTime: (iso: string) => string) {
    this.#t = t;
    this.#time = formatTime;
  }

  #say(key: string, values: Record<string, string | number> = {}): string {
    return this.#t(key, { values });
  }

  /** A name someone typed, kept in its own direction. */
  #name(value: unknown): string {
    return isolate(text(value));
  }

  /** A role's name as shown: a built-in role's translated, the organization's own as typed. */
  #role(value: unknown): string {
    const name = text(value);
    const builtIn = Object.entries(BUILT_IN_ROLE_NAMES).find(([, shown]) => shown === name)?.[0];
    const key = builtIn ? BUILT_IN_ROLE_KEYS[builtIn] : undefined;
    return key ? this.#t(key) : isolate(name);
  }

  #team(value: unknown): string {
    return typeof value === 'string' && value ? isolate(value) : this.#t('admin.users.noTeam');
  }

  #permissions(value: unknown): string {
    const names = permissionNames(list(value), this.#t);
    return names || this.#t(`${D}none`);
  }

  /** An API key as the log names it: ‘ERP’ (sigil_…). */
  #key(details: Details): Record<string, string> {
    return { name: this.#name(details.name), clientId: isolate(text(details.clientId)) };
  }

  #scopes(value: unknown): string {
    const scopes = list(value);
    return scopes.length > 0 ? isolate(scopes.join(', ')) : this.#t(`${D}none`);
  }

  /** Platform staff who acted from the backoffice (their address) and the reason they gave; none for a user's act. */
  #byStaff(details: Details): string[] {
    if (typeof details.byPlatformStaff !== 'string') return [];
    return [
      this.#say(`${D}byPlatformStaff`, {
        email: isolate(details.byPlatformStaff),
        reason: isolate(text(details.reason)),
      }),
    ];
  }

  #addresses(value: unknown): string {
    const entries = list(value);
    return entries.length > 0 ? isolate(entries.join(', ')) : this.#t(`${D}anyAddress`);
  }

  /** The event in words, for the kit's EventList. */
  listed(event: SecurityEventView): ListedEvent {
    return {
      id: event.id,
      kind: event.type,
      at: event.occurredAt,
      what: this.#t(SECURITY_EVENT_KEYS[event.type] ?? 'admin.securityLog.event.other'),
      actor: event.actor ? { name: event.actor.fullName, email: event.actor.email } : null,
      // Whom it concerns, when another than the actor (a signed-in user's own events concern themselves).
      target:
        event.subject && event.subject.email !== event.actor?.email
          ? { text: '', email: event.subject.email }
          : null,
      address: event.ipAddress,
      details: this.details(event).map((value) => ({ value })),
    };
  }

  /** The event's details, a sentence each. */
  details(event: SecurityEventView): string[] {
    const d = event.details;
    switch (event.type) {
      case 'user.registered':
        return [
          this.#say(`${D}registered`, { organization: this.#name(d.organizationName), plan: text(d.plan) }),
        ];
      case 'user.signed_in':
        return [
          this.#say(SIGN_IN_KEYS[text(d.method)] ?? `${D}signedIn`),
          ...(d.state === 'mfa_enrolment_required' ? [this.#say(`${D}setupRequired`)] : []),
        ];
      case 'user.sign_in_failed':
        return [
          this.#say(FAILURE_KEYS[text(d.reason)] ?? `${D}failedRefused`),
          this.#say(`${D}failures`, { count: count(d.failures) }),
        ];
      case 'user.locked_out':
        return [this.#say(`${D}lockedOut`, { count: count(d.failures) })];
      case 'user.mfa_enabled':
        return [
          this.#say(d.method === 'passkey' ? `${D}enabledPasskey` : `${D}enabledTotp`),
          this.#say(`${D}backupCodesMade`, { count: count(d.backupCodes) }),
        ];
      case 'user.mfa_disabled':
        return [
          d.method === 'passkey' ? this.#say(`${D}lastPasskeyRemoved`) : this.#confirmed(d.method),
          ...(count(d.passkeysRemoved) > 0
            ? [this.#say(`${D}passkeysRemoved`, { count: count(d.passkeysRemoved) })]
            : []),
          this.#say(`${D}otherSessionsEnded`, { count: count(d.otherSessionsEnded) }),
        ];
      case 'user.mfa_reset':
        return [
          ...(count(d.passkeysRemoved) > 0
            ? [this.#say(`${D}passkeysRemoved`, { count: count(d.passkeysRemoved) })]
            : []),
          this.#say(`${D}sessionsEnded`, { count: count(d.sessionsEnded) }),
          ...this.#byStaff(d),
        ];
      case 'user.mfa_failed':
        return [
          this.#say(WRONG_FACTOR_KEYS[text(d.method)] ?? `${D}wrongTotp`),
          this.#say(d.purpose === 'reauthentication' ? `${D}whileConfirming` : `${D}whileSigningIn`),
          this.#say(`${D}attemptsLeft`, { count: count(d.attemptsLeft) }),
        ];
      case 'user.backup_codes_regenerated':
        return [this.#say(`${D}backupCodesMade`, { count: count(d.backupCodes) }), this.#confirmed(d.method)];
      case 'user.password_reset':
        return [this.#say(`${D}sessionsEnded`, { count: count(d.sessionsEnded) })];
      case 'user.password_changed':
        return [this.#say(`${D}otherSessionsEnded`, { count: count(d.otherSessionsEnded) })];
      case 'user.profile_updated':
        return [this.#say(`${D}profileChanged`, { fields: this.#fields(d.changed, PROFILE_FIELD_KEYS) })];
      case 'user.email_change_requested':
        return [this.#say(`${D}emailChangeRequested`, { email: isolate(text(d.newEmail)) })];
      case 'user.email_changed':
        return [
          this.#say(`${D}emailChanged`, { from: isolate(text(d.from)), to: isolate(text(d.to)) }),
          this.#say(`${D}otherSessionsEnded`, { count: count(d.otherSessionsEnded) }),
        ];
      case 'user.invited':
        return [this.#say(`${D}invited`, { role: this.#role(d.role), team: this.#team(d.team) })];
      case 'user.updated':
        return this.#userChanges(d);
      case 'user.deleted':
        return [this.#say(`${D}deletedUser`, { role: this.#role(d.role), status: this.#status(d.status) })];
      case 'role.created':
      case 'role.deleted':
        return [
          this.#say(`${D}role`, { role: this.#name(d.role) }),
          this.#say(`${D}permissions`, { permissions: this.#permissions(d.permissions) }),
        ];
      case 'role.updated':
        return this.#roleChanges(d);
      case 'team.created':
        return [this.#say(`${D}team`, { team: this.#name(d.team) })];
      case 'team.updated': {
        const renamed = this.#changed('renamed', d.name, (name) => this.#name(name));
        return renamed.length > 0 ? renamed : [this.#say(`${D}team`, { team: this.#name(d.team) })];
      }
      case 'team.deleted':
        return [
          this.#say(`${D}team`, { team: this.#name(d.team) }),
          this.#say(`${D}membersUnassigned`, { count: count(d.membersUnassigned) }),
        ];
      case 'settings.updated':
        return [this.#say(`${D}settingsChanged`, { fields: this.#fields(d.changed, SETTING_KEYS) })];
      case 'secure_signature_policy.updated':
        return this.#policyChanges(d);
      case 'api_key.created':
        return [
          this.#say(`${D}keyCreated`, { ...this.#key(d), scopes: this.#scopes(d.scopes) }),
          this.#say(`${D}allowlist`, { addresses: this.#addresses(d.ipAllowlist) }),
          this.#say(`${D}secret`, { hint: isolate(text(d.secret)) }),
        ];
      case 'api_key.updated':
        return this.#keyChanges(d);
      case 'api_key.deleted':
        return [this.#say(`${D}keyDeleted`, this.#key(d))];
      case 'api_key.secret_rotated':
        return [
          this.#say(`${D}secretAdded`, {
            ...this.#key(d),
            hint: isolate(text(d.secret)),
            time: typeof d.expiresAt === 'string' ? this.#time(d.expiresAt) : '—',
          }),
        ];
      case 'api_key.secret_deleted':
        return [this.#say(`${D}secretDeleted`, { ...this.#key(d), hint: isolate(text(d.secret)) })];
      // Platform staff's actions from the backoffice: who, and the reason they gave.
      case 'user.unlocked':
      case 'user.verification_resent':
      case 'user.deactivated':
      case 'user.invitation_resent':
        return this.#byStaff(d);
      case 'support.accessed':
        return this.#supportAccess(d);
      case 'user.email_verified':
      case 'user.signed_out':
      case 'user.password_reset_requested':
      case 'user.invitation_accepted': // its detail is the inviter's id: the invitation's event names them
      case 'user.provisioned': // its detail is the role's id and the method (sso): the event's name says it
      case 'user.reactivated':
        return [];
      default:
        return this.#unknown(d);
    }
  }

  /** Who of the platform's staff looked at or repaired which envelope, and why (services/backoffice/staff-access.ts). */
  #supportAccess(d: Details): string[] {
    const what = SUPPORT_ACTION_KEYS[text(d.action)] ?? `${D}supportOther`;
    return [
      this.#say(what, { staff: isolate(text(d.staff)), title: isolate(text(d.title)) }),
      ...(text(d.reason) ? [this.#say(`${D}supportReason`, { reason: isolate(text(d.reason)) })] : []),
    ];
  }

  #confirmed(method: unknown): string {
    return this.#say(CONFIRMED_KEYS[text(method)] ?? `${D}confirmedTotp`);
  }

  #status(value: unknown): string {
    const key = USER_STATUS_KEYS[value as UserStatus];
    return key ? this.#t(key) : text(value);
  }

  /** Field names in the page's words (the settings page's labels), in the order the log keeps them. */
  #fields(value: unknown, keys: Record<string, string>): string {
    return list(value)
      .map((field) => (keys[field] ? this.#t(keys[field]) : field))
      .join(', ');
  }

  /** A detail's change said by its key ("… from {from} to {to}"), each side in `word`'s words; none if unchanged. */
  #changed(key: string, value: unknown, word: (side: unknown) => string): string[] {
    const changed = change(value);
    return changed ? [this.#say(`${D}${key}`, { from: word(changed.from), to: word(changed.to) })] : [];
  }

  #userChanges(d: Details): string[] {
    return [
      ...this.#changed('roleChanged', d.role, (role) => this.#role(role)),
      ...this.#changed('teamChanged', d.team, (team) => this.#team(team)),
    ];
  }

  #roleChanges(d: Details): string[] {
    const lines = [
      this.#say(`${D}role`, { role: this.#name(d.role) }),
      ...this.#changed('renamed', d.name, (name) => this.#name(name)),
    ];
    if (list(d.added).length > 0) {
      lines.push(this.#say(`${D}permissionsAdded`, { permissions: this.#permissions(d.added) }));
    }
    if (list(d.removed).length > 0) {
      lines.push(this.#say(`${D}permissionsRemoved`, { permissions: this.#permissions(d.removed) }));
    }
    return lines;
  }

  /** Each changed field of the secure-signature policy with its value now. */
  #policyChanges(d: Details): string[] {
    const now = (typeof d.settings === 'object' && d.settings !== null ? d.settings : {}) as Details;
    return list(d.changed).map((field) => {
      switch (field) {
        case 'level': {
          const key = LEVEL_NAME_KEYS[now.level as PadesLevel];
          return this.#say(`${D}levelNow`, { level: key ? this.#t(key) : text(now.level) });
        }
        case 'timestampRequired':
          return this.#say(now.timestampRequired ? `${D}timestampOn` : `${D}timestampOff`);
        case 'sealAuditTrail':
          return this.#say(now.sealAuditTrail ? `${D}sealOn` : `${D}sealOff`);
        default:
          return this.#say(`${D}settingsChanged`, { fields: field });
      }
    });
  }

  #keyChanges(d: Details): string[] {
    const renamed = change(d.name);
    const key = { name: this.#name(renamed ? renamed.to : d.name), clientId: isolate(text(d.clientId)) };
    const lines = [
      this.#say(`${D}key`, key),
      ...this.#changed('renamed', d.name, (name) => this.#name(name)),
      ...this.#changed('scopesChanged', d.scopes, (scopes) => this.#scopes(scopes)),
      ...this.#changed('allowlistChanged', d.ipAllowlist, (addresses) => this.#addresses(addresses)),
    ];
    const changer = change(d.changedBy);
    if (changer) lines.push(this.#say(changer.to ? `${D}changerNow` : `${D}changerNone`));
    return lines;
  }

  /** A detail of an event this page does not know yet: its name and value, as plain as they come. */
  #unknown(d: Details): string[] {
    return Object.entries(d).map(([name, value]) => {
      const shown = Array.isArray(value)
        ? value.join(', ')
        : typeof value === 'object'
          ? JSON.stringify(value)
          : value;
      return `${name}: ${String(shown)}`;
    });
  }
}
