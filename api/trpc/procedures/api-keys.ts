// The Integrations area's OAuth clients, "API keys" (docs/integrations.md): the same use cases as the operator
// CLI's `client` commands (services/oauth-clients/). Reading needs integrations:read, changing
// integrations:manage; a new client or secret needs the organization's API access.
import { z } from 'zod';
import { Ok } from '../../../domain/account.ts';
import { ApiKeyDiagnostics, ApiKeyList, ApiKeyView, ApiKeyWithSecret } from '../../../domain/api-key.ts';
import { uuidOf } from '../../../domain/common.ts';
import type { ClientActor } from '../../../services/oauth-clients/client-events.ts';
import {
  CreateApiKeyRequest,
  createOAuthClient,
} from '../../../services/oauth-clients/create-oauth-client.ts';
import { deleteClientSecret } from '../../../services/oauth-clients/delete-client-secret.ts';
import { deleteOAuthClient } from '../../../services/oauth-clients/delete-oauth-client.ts';
import { apiKeyOf, listApiKeys } from '../../../services/oauth-clients/list-api-keys.ts';
import { rotateClientSecret } from '../../../services/oauth-clients/rotate-client-secret.ts';
import {
  UpdateApiKeyRequest,
  updateOAuthClient,
} from '../../../services/oauth-clients/update-oauth-client.ts';
import { clientDiagnostics } from '../../../services/usage/diagnostics.ts';
import { type AppContext, areaRoute, principalOf, procedure, router, thenOk } from '../init.ts';
import { IdParams } from './administration-actor.ts';

const route = areaRoute('integrations');

const organizationOf = (ctx: AppContext) => principalOf(ctx).organization.id;
const actorOf = (ctx: AppContext): ClientActor => ({
  userId: principalOf(ctx).user.id,
  permissions: principalOf(ctx).permissions,
  ipAddress: ctx.ipAddress,
});

const NOT_FOUND = 'No such API key in this organization';
const BEYOND_ROLE =
  'The role lacks integrations:manage (or MFA enrolment comes first); or the key would hold a scope whose ' +
  'permissions the caller’s role lacks (`details[]`: `scope`, `permission`; docs/integrations.md)';
const NO_API_ACCESS =
  '`api_access_unavailable`: the plan has no API access or the organization’s API flag is off ' +
  '(`details[].reason`; support or a platform administrator turns it on)';

export const apiKeysRouter = router({
  list: procedure
    .meta(
      route('GET', '/api/api-keys', {
        summary: "The organization's API keys (OAuth clients)",
        description:
          'Oldest first, each with its active secrets (hints and expiry only), usage counters and rate-limit ' +
          'state, who last changed it and which of its scopes are suspended (that user no longer holds what ' +
          'they need); and whether the organization may use the public API at all, with the reason when not.',
        access: 'integrations:read',
      }),
    )
    .output(ApiKeyList)
    .query(({ ctx }) => listApiKeys(ctx.services, organizationOf(ctx))),

  diagnostics: procedure
    .meta(
      route('GET', '/api/api-keys/diagnostics', {
        summary: 'Requests per API key over the last 24 hours and 7 days',
        description: 'Requests, errors (4xx and 5xx answers) and rate-limit refusals (429) of /api/v1.',
        access: 'integrations:read',
      }),
    )
    .output(ApiKeyDiagnostics)
    .query(({ ctx }) => clientDiagnostics(ctx.services, organizationOf(ctx))),

  create: procedure
    .meta(
      route('POST', '/api/api-keys', {
        summary: 'Create an API key (an OAuth client) and its first secret',
        description:
          'The secret is in this answer only; it is stored as a hash and never shown again. Each IP allowlist ' +
          'entry (one line of the page) is an address or a CIDR range; a refused entry is named ' +
          '`body.ipAllowlist.<n>` with the reason. An empty allowlist accepts any source.',
        access: 'integrations:manage',
        errors: { 403: BEYOND_ROLE, 409: NO_API_ACCESS },
      }),
    )
    .input(CreateApiKeyRequest)
    .output(ApiKeyWithSecret)
    .mutation(async ({ ctx, input }) => {
      const organizationId = organizationOf(ctx);
      const created = await createOAuthClient(ctx.services, { ...input, organizationId }, actorOf(ctx));
      return {
        apiKey: await apiKeyOf(ctx.services, organizationId, created.id),
        secret: {
          id: created.secretId,
          clientSecret: created.clientSecret,
          hint: created.secretHint,
          expiresAt: created.secretExpiresAt.toISOString(),
        },
      };
    }),

  update: procedure
    .meta(
      route('PUT', '/api/api-keys/{id}', {
        summary: "Change an API key's name, scopes and IP allowlist",
        description:
          'All three as sent. Applies at once to the key’s live access tokens too: a scope taken away stops ' +
          'opening its routes, and the new allowlist is checked at their next request. Every scope as saved ' +
          'must be the caller’s to give; the caller becomes the key’s last changer, so saving a key whose ' +
          'scopes were suspended (`suspendedScopes`) makes them work again.',
        access: 'integrations:manage',
        errors: { 403: BEYOND_ROLE, 404: NOT_FOUND },
      }),
    )
    .input(UpdateApiKeyRequest.extend(IdParams.shape))
    .output(ApiKeyView)
    .mutation(async ({ ctx, input }) => {
      const { id, ...changes } = input;
      const organizationId = organizationOf(ctx);
      await updateOAuthClient(ctx.services, { organizationId, client: id }, changes, actorOf(ctx));
      return apiKeyOf(ctx.services, organizationId, id);
    }),

  delete: procedure
    .meta(
      route('DELETE', '/api/api-keys/{id}', {
        summary: 'Delete an API key',
        description: 'Its secrets and access tokens stop working at once; its request figures go with it.',
        access: 'integrations:manage',
        errors: { 404: NOT_FOUND },
      }),
    )
    .input(IdParams)
    .output(Ok)
    .mutation(
      thenOk(({ ctx, input }) =>
        deleteOAuthClient(
          ctx.services,
          { organizationId: organizationOf(ctx), client: input.id },
          actorOf(ctx),
        ),
      ),
    ),

  rotateSecret: procedure
    .meta(
      route('POST', '/api/api-keys/{id}/secrets/rotate', {
        summary: 'Add a new secret to an API key',
        description:
          'The new secret is in this answer only and expires after 365 days; the older one keeps working until ' +
          'it is deleted. A key holds at most two active secrets.',
        access: 'integrations:manage',
        errors: {
          403: BEYOND_ROLE,
          404: NOT_FOUND,
          409: `${NO_API_ACCESS}; \`secret_limit\`: two secrets are active already, delete one first`,
        },
      }),
    )
    .input(IdParams)
    .output(ApiKeyWithSecret)
    .mutation(async ({ ctx, input }) => {
      const organizationId = organizationOf(ctx);
      const rotated = await rotateClientSecret(
        ctx.services,
        { organizationId, client: input.id },
        actorOf(ctx),
      );
      return {
        apiKey: await apiKeyOf(ctx.services, organizationId, rotated.oauthClientId),
        secret: {
          id: rotated.secretId,
          clientSecret: rotated.clientSecret,
          hint: rotated.hint,
          expiresAt: rotated.expiresAt.toISOString(),
        },
      };
    }),

  deleteSecret: procedure
    .meta(
      route('DELETE', '/api/api-keys/{id}/secrets/{secretId}', {
        summary: 'Delete one secret of an API key',
        description:
          'It stops authenticating at once and the access tokens obtained with it are revoked. Deleting the last ' +
          'active secret locks the key out until a new secret is rotated in.',
        access: 'integrations:manage',
        errors: { 404: 'No such API key in this organization, or no such active secret of it' },
      }),
    )
    .input(z.object({ id: uuidOf('id'), secretId: uuidOf('secretId') }))
    .output(ApiKeyView)
    .mutation(async ({ ctx, input }) => {
      const organizationId = organizationOf(ctx);
      await deleteClientSecret(
        ctx.services,
        { organizationId, client: input.id, secretId: input.secretId },
        actorOf(ctx),
      );
      return apiKeyOf(ctx.services, organizationId, input.id);
    }),
});
