// The security log in words (web/src/lib/app/security-log/security-events.ts): each event's details, as the
// services record them (services/accounts/*, services/administration/*, services/oauth-clients/*,
// services/sealing/policy.ts), become sentences in the page's language — never a raw key ("method: password",
// "clientId: …") or an id, in English and in Hebrew.
import { get } from 'svelte/store';
import { addMessages, format, init, locale } from 'svelte-i18n';
import { beforeAll, describe, expect, it } from 'vitest';
import { SECURITY_EVENT_TYPES, type SecurityEventType } from '../../domain/account.ts';
import { SecurityEventWords } from '../../web/src/lib/app/security-log/security-events.ts';
import type { SecurityEventView } from '../../web/src/lib/app/types.ts';
import en from '../../web/src/lib/i18n/en.json' with { type: 'json' };
import he from '../../web/src/lib/i18n/he.json' with { type: 'json' };

const ACTOR = {
  id: '6f1c0a52-5d1e-4c57-9a44-1f0f5e0b7d01',
  email: 'dana@example.com',
  fullName: 'Dana Levi',
};

/** One event of each type with the details its service records. */
const DETAILS: Record<SecurityEventType, Record<string, unknown>> = {
  'user.registered': { organizationName: 'Acme', plan: 'Starter' },
  'user.email_verified': {},
  'user.signed_in': { method: 'password' },
  'user.sign_in_failed': { reason: 'wrong_password', failures: 3 },
  'user.locked_out': { failures: 10 },
  'user.signed_out': {},
  'user.mfa_enabled': { method: 'totp', backupCodes: 10 },
  'user.mfa_disabled': { method: 'backup_code', otherSessionsEnded: 2, passkeysRemoved: 1 },
  'user.mfa_reset': { authenticatorApp: true, backupCodesRemoved: 8, passkeysRemoved: 1, sessionsEnded: 2 },
  'user.mfa_failed': { method: 'totp', purpose: 'sign_in', attemptsLeft: 4 },
  'user.backup_codes_regenerated': { method: 'totp', backupCodes: 10 },
  'user.password_reset_requested': {},
  'user.password_reset': { sessionsEnded: 1 },
  'user.password_changed': { otherSessionsEnded: 2 },
  'user.profile_updated': { changed: ['fullName', 'phone'] },
  'user.email_change_requested': { newEmail: 'dana.new@example.com' },
  'user.email_changed': { from: 'dana@example.com', to: 'dana.new@example.com', otherSessionsEnded: 1 },
  'user.invited': { role: 'Auditors', team: null },
  'user.invitation_resent': {},
  'user.invitation_accepted': { invitedBy: ACTOR.id },
  'user.provisioned': { method: 'sso', roleId: ACTOR.id },
  'user.updated': { role: { from: 'Read-only member', to: 'Sender' }, team: { from: null, to: 'מכירות' } },
  'user.deactivated': {},
  'user.reactivated': {},
  'user.deleted': { role: 'Sender', status: 'active' },
  'role.created': { role: 'Auditors', permissions: ['reports:read', 'security:read'] },
  'role.updated': {
    role: 'Auditors',
    name: { from: 'Audit', to: 'Auditors' },
    added: ['users:read'],
    removed: [],
  },
  'role.deleted': { role: 'Auditors', permissions: ['reports:read'] },
  'team.created': { team: 'Support' },
  'team.updated': { team: 'Support', name: { from: 'Sales', to: 'Support' } },
  'team.deleted': { team: 'Support', membersUnassigned: 2 },
  'settings.updated': { changed: ['senderDisplayName', 'retention.completedDays'] },
  'secure_signature_policy.updated': {
    changed: ['level', 'timestampRequired'],
    settings: { level: 'B-T', timestampRequired: true, sealAuditTrail: false },
  },
  'api_key.created': {
    name: 'ERP',
    clientId: 'sigil_3f9a',
    scopes: ['envelopes.read', 'envelopes.write'],
    ipAllowlist: [],
    secret: '…abcd',
  },
  'api_key.updated': {
    name: { from: 'ERP', to: 'ERP 2' },
    clientId: 'sigil_3f9a',
    scopes: { from: ['envelopes.read'], to: ['envelopes.read', 'templates.read'] },
    changedBy: { from: null, to: ACTOR.id },
  },
  'api_key.deleted': { name: 'ERP', clientId: 'sigil_3f9a' },
  'api_key.secret_rotated': {
    name: 'ERP',
    clientId: 'sigil_3f9a',
    secret: '…wxyz',
    expiresAt: '2027-01-31T10:00:00.000Z',
  },
  'api_key.secret_deleted': { name: 'ERP', clientId: 'sigil_3f9a', secret: '…abcd' },
  'user.unlocked': {
    lockedUntil: '2026-12-05T20:00:00.000Z',
    byPlatformStaff: 'ops@sigil.example',
    reason: 'Ticket 4412',
  },
  'user.verification_resent': { byPlatformStaff: 'ops@sigil.example', reason: 'Ticket 4413' },
  'support.accessed': {
    action: 'envelope.contents_viewed',
    targetId: '6f1c0a52-5d1e-4c57-9a44-1f0f5e0b7d09',
    staff: 'ops@sigil.example',
    staffRole: 'support',
    title: 'Lease 12',
    reason: 'Ticket 4414',
  },
};

function event(type: SecurityEventType, details = DETAILS[type]): SecurityEventView {
  return {
    id: '0b5a3c1e-93a4-4f0e-8d0c-5a1f3e2d4c6b',
    type,
    occurredAt: '2026-12-05T10:06:00.000Z',
    actor: ACTOR,
    subject: null,
    ipAddress: '127.0.0.1',
    details,
  };
}

/** The sentences without the direction isolates around names. */
async function detailsIn(language: 'en' | 'he', type: SecurityEventType, details = DETAILS[type]) {
  await locale.set(language);
  const words = new SecurityEventWords(get(format), (iso) => iso.slice(0, 10));
  return words.details(event(type, details)).map((line) => line.replace(/[\u2068\u2069]/g, ''));
}

beforeAll(async () => {
  addMessages('en', en);
  addMessages('he', he);
  init({ fallbackLocale: 'en', initialLocale: 'en' });
});

describe('the security log in words', () => {
  it('says how a user signed in, failed and changed two-step verification', async () => {
    expect(await detailsIn('en', 'user.signed_in')).toEqual(['Signed in with a password']);
    expect(await detailsIn('en', 'user.signed_in', { method: 'passkey', state: 'active' })).toEqual([
      'Signed in with a password and a passkey',
    ]);
    expect(
      await detailsIn('en', 'user.signed_in', { method: 'password', state: 'mfa_enrolment_required' }),
    ).toEqual(['Signed in with a password', 'Two-step verification must be set up before anything else']);
    expect(await detailsIn('en', 'user.sign_in_failed')).toEqual([
      'Wrong password',
      '3 failed sign-ins with this address so far',
    ]);
    expect(await detailsIn('en', 'user.mfa_failed')).toEqual([
      'A wrong code from the authenticator app',
      'While signing in',
      '4 attempts left',
    ]);
    expect(await detailsIn('en', 'user.mfa_disabled')).toEqual([
      'Confirmed with the password and a backup code',
      '1 passkey removed',
      '2 other sessions ended',
    ]);
    expect(await detailsIn('he', 'user.signed_in')).toEqual(['כניסה עם סיסמה']);
  });

  it('says which envelope platform support looked at or repaired, who and why', async () => {
    expect(await detailsIn('en', 'support.accessed')).toEqual([
      'ops@sigil.example looked at the contents of the envelope “Lease 12”',
      'Reason: Ticket 4414',
    ]);
    expect(
      await detailsIn('en', 'support.accessed', {
        action: 'envelope.viewed',
        staff: 'ops@sigil.example',
        title: 'A',
      }),
    ).toEqual(['ops@sigil.example looked at the envelope “A”']);
    expect(
      await detailsIn('he', 'support.accessed', {
        action: 'organization.users_viewed',
        staff: 'ops@sigil.example',
      }),
    ).toEqual(['ops@sigil.example צפה ברשימת המשתמשים של הארגון']);
    expect(await detailsIn('he', 'support.accessed')).toEqual([
      'ops@sigil.example צפה בתוכן המעטפה „Lease 12”',
      'סיבה: Ticket 4414',
    ]);
  });

  it('names the platform staff who acted from the backoffice and the reason they gave', async () => {
    expect(await detailsIn('en', 'user.unlocked')).toEqual([
      'By Sigil support (ops@sigil.example): Ticket 4412',
    ]);
    expect(
      await detailsIn('en', 'user.deactivated', { byPlatformStaff: 'ops@sigil.example', reason: 'Left' }),
    ).toEqual(['By Sigil support (ops@sigil.example): Left']);
    expect(
      await detailsIn('en', 'user.invitation_resent', {
        byPlatformStaff: 'ops@sigil.example',
        reason: 'Lost it',
      }),
    ).toEqual(['By Sigil support (ops@sigil.example): Lost it']);
    // A deactivation by the organization's own administrator says nothing more than its name.
    expect(await detailsIn('en', 'user.deactivated', {})).toEqual([]);
    expect((await detailsIn('he', 'user.verification_resent'))[0]).toContain('התמיכה של Sigil');
  });

  it('names API keys, roles, teams and settings by their names and the page’s words', async () => {
    expect(await detailsIn('en', 'api_key.created')).toEqual([
      'API key ‘ERP’ (sigil_3f9a) created with scopes envelopes.read, envelopes.write',
      'IP allowlist: any address',
      'Secret …abcd',
    ]);
    expect(await detailsIn('en', 'api_key.updated')).toEqual([
      'API key ‘ERP 2’ (sigil_3f9a)',
      'Renamed from ‘ERP’ to ‘ERP 2’',
      'Scopes changed from envelopes.read to envelopes.read, templates.read',
      'From now on it reaches only what the user who saved it may do',
    ]);
    expect(await detailsIn('en', 'api_key.secret_rotated')).toEqual([
      'New secret …wxyz for API key ‘ERP’ (sigil_3f9a), valid until 2027-01-31',
    ]);
    expect(await detailsIn('en', 'user.updated')).toEqual([
      'Role changed from Read-only member to Sender',
      'Team changed from No team to מכירות',
    ]);
    expect(await detailsIn('en', 'role.created')).toEqual([
      'Role ‘Auditors’',
      'Permissions: Reports: View, Security log: View',
    ]);
    expect(await detailsIn('en', 'settings.updated')).toEqual([
      'Changed: Sender name, Completed documents (days)',
    ]);
    expect(await detailsIn('en', 'secure_signature_policy.updated')).toEqual([
      'Seal level now B-T · With a timestamp',
      'A timestamp is now required',
    ]);
    expect(await detailsIn('en', 'user.invitation_accepted')).toEqual([]);
    expect(await detailsIn('he', 'user.invited')).toEqual([
      `הזמנה לתפקיד Auditors; צוות: ${he['admin.users.noTeam']}`,
    ]);
  });

  it('says every type without a raw key, an id or an untranslated word in Hebrew', async () => {
    for (const type of SECURITY_EVENT_TYPES) {
      for (const language of ['en', 'he'] as const) {
        for (const line of await detailsIn(language, type)) {
          // A raw detail looked like `method: password` or `clientId: sigil_…`.
          expect(line, `${language} ${type}`).not.toMatch(/\b[a-z]+[A-Z]\w*\b|^[a-z]\w*: /);
          expect(line, `${language} ${type}`).not.toContain(ACTOR.id);
          expect(line, `${language} ${type}`).not.toContain('admin.securityLog');
          // Hebrew lines are Hebrew, around the names and codes they carry.
          if (language === 'he') expect(line, type).toMatch(/[\u0590-\u05FF]/);
        }
      }
    }
  });
});
