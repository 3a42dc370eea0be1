// Development seed: a demo organization with a published demo template and an OAuth client.
// Runs on every `npm start` in development and creates the demo only once; what it created (including the
// client secret, shown nowhere else) is kept in <DATA_DIR>/demo.json, readable by the owner only.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createOAuthClient } from '../../api/services/oauth-clients/create-oauth-client.ts';
import { createOrganization } from '../../api/services/organizations/create-organization.ts';
import { createTemplate } from '../../api/services/templates/create-template.ts';
import { Organization, Template } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import { SCOPES } from '../../domain/scopes.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from './demo-pdf.ts';

export interface DemoData {
  organizationId: string;
  organizationName: string;
  templateId: string;
  clientId: string;
  clientSecret: string;
}

export async function seedDemo(orm: Orm, dataDir: string): Promise<{ demo: DemoData; created: boolean }> {
  const file = join(dataDir, 'demo.json');
  const em = orm.em.fork();
  const existing = await readDemo(file);
  if (existing) {
    const organization = await em.findOne(Organization, { id: existing.organizationId });
    const template = await em.findOne(Template, { id: existing.templateId });
    if (organization && template) return { demo: existing, created: false };
  }
  const ctx = { em };
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
  const demo: DemoData = {
    organizationId: organization.id,
    organizationName: organization.name,
    templateId: template.id,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
  };
  await writeFile(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return { demo, created: true };
}

async function readDemo(file: string): Promise<DemoData | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as DemoData;
  } catch {
    return undefined;
  }
}
