// The table of what each API scope and each webhook event needs (domain/credential-permissions.ts): complete
// (every scope, every event, only known permissions), the choices the issue asked for (reading envelopes needs
// documents:read_all, writing them documents:manage), the built-in roles' reach, what is suspended when a
// last changer loses a permission or leaves, and the docs' tables written from it (`npm run docs:credentials`).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  EVENT_SCOPE,
  eventPermissions,
  eventPermissionsMarkdown,
  SCOPE_PERMISSIONS,
  scopePermissionsMarkdown,
  subscribedEvents,
  suspendedEvents,
  suspendedScopes,
  ungrantableEvents,
  ungrantableScopes,
} from '../../domain/credential-permissions.ts';
import { BUILT_IN_ROLE_PERMISSIONS, isPermission } from '../../domain/permissions.ts';
import { SCOPES } from '../../domain/scopes.ts';
import { WEBHOOK_EVENT_TYPES } from '../../domain/vocabulary.ts';
import { CREDENTIAL_MARKERS, CREDENTIAL_PAGES } from '../../scripts/generate-credential-docs.ts';

describe('the table', () => {
  it('names every scope and every event, with permissions that exist', () => {
    expect(Object.keys(SCOPE_PERMISSIONS).sort()).toEqual([...SCOPES].sort());
    expect(Object.keys(EVENT_SCOPE).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const permissions of Object.values(SCOPE_PERMISSIONS)) {
      for (const permission of permissions) expect(isPermission(permission), permission).toBe(true);
    }
    expect(subscribedEvents([])).toEqual(expect.arrayContaining([...WEBHOOK_EVENT_TYPES]));
  });

  it('asks every envelope of the organization for envelope scopes and events', () => {
    expect(SCOPE_PERMISSIONS['envelopes.read']).toEqual(['documents:read', 'documents:read_all']);
    expect(SCOPE_PERMISSIONS['envelopes.write']).toEqual(
      expect.arrayContaining(['documents:read_all', 'documents:manage']),
    );
    for (const event of WEBHOOK_EVENT_TYPES) expect(eventPermissions(event)).toContain('documents:read_all');
  });

  it('lets owners and administrators give everything, senders and members no envelope reader', () => {
    for (const role of ['owner', 'administrator'] as const) {
      expect(ungrantableScopes(SCOPES, BUILT_IN_ROLE_PERMISSIONS[role]), role).toEqual([]);
      expect(ungrantableEvents([], BUILT_IN_ROLE_PERMISSIONS[role]), role).toEqual([]);
    }
    for (const role of ['sender', 'member'] as const) {
      expect(ungrantableScopes(['envelopes.read'], BUILT_IN_ROLE_PERMISSIONS[role])).toEqual([
        { item: 'envelopes.read', lacking: ['documents:read_all'] },
      ]);
    }
    const integrationsOnly = ['integrations:read', 'integrations:manage'] as const;
    expect(ungrantableScopes(SCOPES, integrationsOnly).map((refused) => refused.item)).toEqual([
      'usage.read',
      'templates.read',
      'files.write',
      'envelopes.read',
      'envelopes.write',
    ]);
    // An empty event list is every event: all twelve refused.
    expect(ungrantableEvents([], integrationsOnly)).toHaveLength(WEBHOOK_EVENT_TYPES.length);
  });
});

describe('suspension by the last changer', () => {
  const sender = { active: true, permissions: BUILT_IN_ROLE_PERMISSIONS.sender };

  it('suspends nothing of what the operator made, and what a demoted user no longer covers', () => {
    expect(suspendedScopes(['envelopes.read'], null)).toEqual([]);
    expect(suspendedScopes(['envelopes.read', 'templates.read'], sender)).toEqual([
      { item: 'envelopes.read', reason: 'permission_missing', lacking: ['documents:read_all'] },
    ]);
    expect(suspendedEvents(['envelope.completed'], sender)).toEqual([
      { item: 'envelope.completed', reason: 'permission_missing', lacking: ['documents:read_all'] },
    ]);
  });

  it('suspends everything of a deactivated or deleted user, scopes that need nothing included', () => {
    const gone = { active: false, permissions: BUILT_IN_ROLE_PERMISSIONS.owner };
    expect(suspendedScopes(['organization.read', 'templates.read'], gone)).toEqual([
      { item: 'organization.read', reason: 'user_inactive', lacking: [] },
      { item: 'templates.read', reason: 'user_inactive', lacking: ['templates:read'] },
    ]);
    expect(suspendedEvents([], gone)).toHaveLength(WEBHOOK_EVENT_TYPES.length);
  });
});

describe('the docs', () => {
  it('show the tables the code holds (run `npm run docs:credentials` after changing them)', async () => {
    for (const { page, table } of CREDENTIAL_PAGES) {
      const text = await readFile(new URL(`../../${page}`, import.meta.url), 'utf8');
      const written = CREDENTIAL_MARKERS.exec(text)?.[0];
      expect(written, page).toBe(`<!-- credentials:begin -->\n${table()}\n<!-- credentials:end -->`);
    }
    expect(scopePermissionsMarkdown()).toContain(
      '| `envelopes.read` | `documents:read`, `documents:read_all` |',
    );
    expect(eventPermissionsMarkdown()).toContain('| `envelope.completed` | `envelopes.read` |');
  });
});
