// What the Integrations page's API keys share (docs/integrations.md): the server's shapes (domain/api-key.ts,
// types only), the specification's scopes (domain/scopes.ts) with their catalog keys and what each needs of the
// giver's role (domain/credential-permissions.ts), and the keys of the reasons the public API may be off.
import type { z } from 'zod';
import type * as apiKey from '../../../../../domain/api-key.ts';
import { SCOPE_PERMISSIONS } from '../../../../../domain/credential-permissions.ts';
import { SCOPES, type Scope } from '../../../../../domain/scopes.ts';

export { SCOPES, type Scope };

/** The permissions `scope` needs that `held` lacks (domain/credential-permissions.ts): empty, it may be given. */
export function scopeLacks(scope: Scope, held: readonly string[]): string[] {
  return SCOPE_PERMISSIONS[scope].filter((permission) => !held.includes(permission));
}

export type ApiKeyList = z.output<typeof apiKey.ApiKeyList>;
export type ApiKeyView = z.output<typeof apiKey.ApiKeyView>;
export type ApiKeySecretView = z.output<typeof apiKey.ApiKeySecretView>;
export type ApiKeyDiagnostics = z.output<typeof apiKey.ApiKeyDiagnostics>;
/** A key with the secret just made for it (created or rotated): shown once. */
export type CreatedApiKey = z.output<typeof apiKey.ApiKeyWithSecret>;
export type ApiAccessReason = (typeof apiKey.API_ACCESS_REASONS)[number];

/** What each scope grants, in the page's language. */
export const SCOPE_KEYS: Record<Scope, string> = {
  'organization.read': 'apiKeys.scope.organizationRead',
  'usage.read': 'apiKeys.scope.usageRead',
  'templates.read': 'apiKeys.scope.templatesRead',
  'files.write': 'apiKeys.scope.filesWrite',
  'envelopes.read': 'apiKeys.scope.envelopesRead',
  'envelopes.write': 'apiKeys.scope.envelopesWrite',
  'webhooks.manage': 'apiKeys.scope.webhooksManage',
};

/** Why the public API is off, said with the plan's name. */
export const API_ACCESS_REASON_KEYS: Record<ApiAccessReason, string> = {
  plan_without_api_access: 'apiKeys.noAccess.plan',
  organization_api_disabled: 'apiKeys.noAccess.flag',
};

/** The allowlist as the server takes it: one entry per line of the field (line n is entry n - 1). */
export function allowlistLines(text: string): string[] {
  return text.split('\n');
}

/** The lines the server refused (`ipAllowlist.<n>` of a 400's fields), by line number from 1. */
export function refusedLines(fields: Record<string, string>): { line: number; message: string }[] {
  return Object.entries(fields)
    .flatMap(([field, message]) => {
      const index = /^ipAllowlist\.(\d+)$/.exec(field)?.[1];
      return index === undefined ? [] : [{ line: Number(index) + 1, message }];
    })
    .sort((a, b) => a.line - b.line);
}
