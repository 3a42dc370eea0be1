// Development seed: a demo organization with a published demo template, an OAuth client and an owner who
// can sign in to the web app (owner@demo.sigil.test, email verified, a random password made once).
// Runs on every `npm start` in development only (never in production: scripts/start.ts calls it only there)
// and creates the demo only once; what it created (including the client secret and the owner's password,
// shown nowhere else) is kept in <DATA_DIR>/demo.json, readable by the owner only.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageConfig } from '../../config/storage.ts';
import { Organization, Template } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import { SCOPES } from '../../domain/scopes.ts';
import { addOwner, findUserByEmail } from '../../services/accounts/account-users.ts';
import { createOAuthClient } from '../../services/oauth-clients/create-oauth-client.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { hashPassword, verifyPassword } from '../../services/security/passwords.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { createFileObjects } from '../../storage/create-object-store.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from './demo-pdf.ts';

export interface DemoData {
  organizationId: string;
  organizationName: string;
  templateId: string;
  clientId: string;
  clientSecret: string;
  /** The demo owner (absent in a demo.json written before there was one: added at the next start). */
  ownerEmail?: string;
  ownerPassword?: string;
}

export const DEMO_OWNER_EMAIL = 'owner@demo.sigil.test';

export async function seedDemo(
  orm: Orm,
  dataDir: string,
  storage: StorageConfig = { kind: 'postgres' },
): Promise<{ demo: DemoData; created: boolean }> {
  const file = join(dataDir, 'demo.json');
  const em = orm.em.fork();
  const existing = await readDemo(file);
  if (existing) {
    const organization = await em.findOne(Organization, { id: existing.organizationId });
    const template = await em.findOne(Template, { id: existing.templateId });
    if (organization && template) {
      const demo = await ensureDemoOwner(em, organization, existing);
      if (demo !== existing) await writeDemo(file, demo);
      return { demo, created: false };
    }
  }
  const ctx = { em, files: createFileObjects(storage, orm.em) };
  const organization = await createOrganization(ctx, {
    name: 'Demo Organization',
    plan: 'Business',
    apiEnabled: true,
  });
  const template = await createTemplate(ctx, {
    organizationId: organization.id,
    pdf: await buildDemoPdf(),
    filename: 'demo-agreement.pdf',
    definition: DEMO_TEMPLATE_DEFINITION,
    publish: true,
  });
  const client = await createOAuthClient(ctx, {
    organizationId: organization.id,
    name: 'Demo integration',
    scopes: [...SCOPES],
  });
  const demo = await ensureDemoOwner(em, organization, {
    organizationId: organization.id,
    organizationName: organization.name,
    templateId: template.id,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
  });
  await writeDemo(file, demo);
  return { demo, created: true };
}

/**
 * The demo organization's owner, active with a verified email: created with a new random password when
 * missing; given a new one when demo.json does not hold a password that works (answered in a new DemoData).
 */
async function ensureDemoOwner(em: Orm['em'], organization: Organization, demo: DemoData): Promise<DemoData> {
  const user = await findUserByEmail({ em }, DEMO_OWNER_EMAIL);
  if (
    user?.status === 'active' &&
    user.organizationId === organization.id &&
    user.emailVerifiedAt &&
    user.passwordHash &&
    demo.ownerPassword &&
    (await verifyPassword(demo.ownerPassword, user.passwordHash))
  ) {
    return demo.ownerEmail === DEMO_OWNER_EMAIL ? demo : { ...demo, ownerEmail: DEMO_OWNER_EMAIL };
  }
  const password = randomBytes(12).toString('base64url');
  const passwordHash = await hashPassword(password);
  if (user && user.organizationId === organization.id) {
    user.passwordHash = passwordHash;
    user.status = 'active';
    user.emailVerifiedAt ??= new Date();
  } else {
    // Another organization's user with the address (an earlier demo organization): it gives the address up.
    if (user) {
      user.status = 'deleted';
      user.deletedAt = new Date();
      await em.flush();
    }
    await addOwner(
      { em },
      {
        organization,
        email: DEMO_OWNER_EMAIL,
        fullName: 'Demo Owner',
        passwordHash,
        language: 'en',
        emailVerified: true,
      },
    );
  }
  await em.flush();
  return { ...demo, ownerEmail: DEMO_OWNER_EMAIL, ownerPassword: password };
}

async function writeDemo(file: string, demo: DemoData): Promise<void> {
  await writeFile(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
}

async function readDemo(file: string): Promise<DemoData | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as DemoData;
  } catch {
    return undefined;
  }
}
