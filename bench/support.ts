// What every benchmark starts with: real PostgreSQL, Temporal and worker (the test infrastructure), the API
// app in production configuration, and an organization with a published template, an OAuth client (made by its
// owner) and a bearer token. The organization's rate limits are raised: the limiter stays on the measured path but never
// answers 429.
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildApp } from '../api/app.ts';
import { loadConfig } from '../config/config.ts';
import { Organization } from '../db/entities/index.ts';
import { BUILT_IN_ROLE_PERMISSIONS } from '../domain/permissions.ts';
import { SCOPES } from '../domain/scopes.ts';
import { makeSealPkcs12 } from '../scripts/sealing/make-pkcs12.ts';
import { createOAuthClient } from '../services/oauth-clients/create-oauth-client.ts';
import { createFileObjects } from '../storage/create-object-store.ts';
import { connectClient } from '../temporal/connection.ts';
import { createOrganizationWithTemplate } from '../test/support/context.ts';
import { startTestInfrastructure } from '../test/support/infrastructure.ts';
import { signedInUser } from '../test/support/signed-in-user.ts';

export async function startBenchApi(say: (line: string) => void) {
  const infrastructure = await startTestInfrastructure(say);
  const temporal = await connectClient({
    address: infrastructure.temporalAddress,
    namespace: infrastructure.namespace,
  });
  const benchSeal = makeSealPkcs12(join(tmpdir(), 'sigil-bench-seal-pkcs12'), 'sigil-bench-seal');
  const config = loadConfig({
    SIGIL_ENV: 'production',
    DATABASE_URL: infrastructure.databaseUrl,
    TEMPORAL_ADDRESS: infrastructure.temporalAddress,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // A seal certificate made for the benchmarks (production needs one; no validator trusts its root).
    SEALING_PKCS12_PATH: benchSeal.path,
    SEALING_PKCS12_PASSPHRASE: benchSeal.passphrase,
    // The load generator is one address: the signer API's per-address throttle stays on the path, never 429.
    SIGNING_RATE_LIMIT_PER_MINUTE: '100000000',
  });
  const app = await buildApp({
    config,
    orm: infrastructure.orm,
    temporal: {
      connection: temporal.connection,
      client: temporal.client,
      namespace: infrastructure.namespace,
    },
    logger: pino({ level: 'silent' }),
  });
  const ctx = {
    em: infrastructure.orm.em.fork(),
    files: createFileObjects({ kind: 'postgres' }, infrastructure.orm.em),
  };
  const { organization, template } = await createOrganizationWithTemplate(ctx);
  await infrastructure.orm.em
    .fork()
    .nativeUpdate(
      Organization,
      { id: organization.id },
      { ratePerMinute: 100_000_000, uploadRatePerMinute: 100_000_000 },
    );
  // Made by the organization's owner, as the Integrations page makes keys: the bearer check then reads the key's
  // last changer and their role on every request, as in production (issue 30).
  const owner = await signedInUser(
    { ctx: infrastructure },
    { role: 'owner', organizationId: organization.id },
  );
  const client = await createOAuthClient(
    ctx,
    { organizationId: organization.id, name: 'bench', scopes: [...SCOPES] },
    { userId: owner.user.id, permissions: BUILT_IN_ROLE_PERMISSIONS.owner, ipAddress: null },
  );
  const tokenResponse = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: 'grant_type=client_credentials',
  });
  if (tokenResponse.statusCode !== 200) throw new Error(`token: ${tokenResponse.body}`);
  const token = tokenResponse.json().access_token as string;
  return {
    infrastructure,
    temporal,
    config,
    app,
    organization,
    template,
    /** `Authorization` header with the bearer token. */
    auth: { authorization: `Bearer ${token}` },
    close: async () => {
      await app.close();
      await temporal.close();
      await infrastructure.stop();
    },
  };
}
