// The public API's OAuth scopes, exactly as the specification names them (part of the product's vocabulary:
// the API checks them, services validate clients' scopes against them, the OpenAPI document lists them).
export const SCOPES = [
  'organization.read',
  'usage.read',
  'templates.read',
  'files.write',
  'envelopes.read',
  'envelopes.write',
  'webhooks.manage',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
