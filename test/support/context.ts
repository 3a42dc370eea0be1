// Per-test-file access to the shared infrastructure: an ORM and a Temporal client, and helpers that create
// the data every envelope test needs through the real services.
import { inject } from 'vitest';
import { loadConfig } from '../../config/config.ts';
import type { StorageConfig } from '../../config/storage.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import type { TemplateDefinition } from '../../domain/template.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import type { ServiceContext } from '../../services/context.ts';
import { type CreateEnvelopeInput, createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { createFileObjects } from '../../storage/create-object-store.ts';
import type { FileObjects } from '../../storage/file-objects.ts';
import { connectClient } from '../../temporal/connection.ts';

/**
 * The configuration a test process gets from an empty environment (SIGIL_ENV=test), except that the token
 * endpoint's and the signer API's per-address limits are lifted: every test file calls them from 127.0.0.1.
 */
/** The tests' SECRETS_ENCRYPTION_KEY (32 bytes in base64), so no key file is written under DATA_DIR. */
export const TEST_ENCRYPTION_KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString('base64');

export function testConfig(extra: Record<string, string> = {}) {
  return loadConfig({
    SIGIL_ENV: 'test',
    SECRETS_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
    SIGNING_RATE_LIMIT_PER_MINUTE: '1000000',
    ...extra,
  });
}

/**
 * The use cases' context for tests: each read of `em` is a new unit of work (as each HTTP request gets one),
 * and `orm` is there for tests that look at rows directly.
 */
export interface TestContext extends ServiceContext {
  orm: Orm;
  close(): Promise<void>;
}

/** `storage`: where new files' bytes go (default PostgreSQL, as `npm start`). */
export async function openTestContext(options: { storage?: StorageConfig } = {}): Promise<TestContext> {
  const orm = await createOrm({ databaseUrl: inject('databaseUrl'), poolMax: 4 });
  const files = createFileObjects(options.storage ?? { kind: 'postgres' }, orm.em);
  const temporal = await connectClient({
    address: inject('temporalAddress'),
    namespace: inject('namespace'),
  });
  return {
    orm,
    get em() {
      return orm.em.fork();
    },
    temporal: temporal.client,
    config: { env: 'test', publicBaseUrl: 'http://localhost:3000' },
    files,
    close: async () => {
      await temporal.close();
      files.close();
      await orm.close();
    },
  };
}

/** A new organization (so tests never see each other's data) with a published template. */
export async function createOrganizationWithTemplate(
  ctx: Pick<ServiceContext, 'em' | 'files'>,
  definition: TemplateDefinition = DEMO_TEMPLATE_DEFINITION as unknown as TemplateDefinition,
) {
  const organization = await createOrganization(ctx, {
    name: `Test org ${Math.random().toString(36).slice(2, 8)}`,
    plan: 'Business',
    apiEnabled: true,
  });
  const template = await createTemplate(ctx, {
    organizationId: organization.id,
    pdf: await buildDemoPdf(),
    filename: 'demo.pdf',
    definition,
    publish: true,
  });
  return { organization, template };
}

/**
 * Two signers whose links are handed out by hand (`ManualLink`): no invitation is sent, so lifecycle tests see
 * only the lifecycle. The notifications have their own tests (notifications-*.test.ts, envelope-messages).
 */
export const TWO_SIGNERS = [
  {
    roleName: 'Client',
    fullName: 'Dana Levi',
    email: 'dana@example.com',
    deliveryChannel: 'ManualLink' as const,
  },
  {
    roleName: 'Provider',
    fullName: 'Sam Cohen',
    email: 'sam@example.com',
    deliveryChannel: 'ManualLink' as const,
  },
];

/** A Draft envelope from a new organization's demo template, with the Client and Provider as signers 1 and 2. */
export async function draftTwoSignerEnvelope(
  ctx: Pick<ServiceContext, 'em' | 'files'>,
  options: Partial<Omit<CreateEnvelopeInput, 'organizationId' | 'templateId'>> = {},
) {
  const { organization, template } = await createOrganizationWithTemplate(ctx);
  const envelope = await createEnvelope(ctx, {
    title: 'Services agreement',
    recipients: TWO_SIGNERS,
    ...options,
    organizationId: organization.id,
    templateId: template.id,
  });
  const { recipients } = await findEnvelope(ctx, organization.id, envelope.id);
  const [first, second] = recipients;
  if (!first || !second) throw new Error('expected two recipients');
  return { organizationId: organization.id, envelope, envelopeId: envelope.id, recipients, first, second };
}

/**
 * A context on `orm` for calling services directly in tests: every read of `em` is a new unit of work, as
 * every HTTP request gets one; `extra` adds the rest (Temporal client, configuration).
 */
export function servicesOn<T extends object = Record<never, never>>(
  orm: Orm,
  extra?: T,
): T & { em: Orm['em']; files: FileObjects } {
  // Stored files' bytes on this ORM's database, in its PostgreSQL store.
  const context = { files: createFileObjects({ kind: 'postgres' }, orm.em), ...(extra ?? {}) } as T & {
    em: Orm['em'];
    files: FileObjects;
  };
  Object.defineProperty(context, 'em', { get: () => orm.em.fork(), enumerable: true });
  return context;
}
