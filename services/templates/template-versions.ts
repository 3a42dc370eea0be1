// What the application routes' template use cases share (docs/templates.md): who acts, the lookups scoped to
// the caller's organization (another organization's template, a one-off template, an archived one, an
// unknown or a malformed id are all "not found"), a template's versions, the size of its pages and the builder's
// view of a version.
//
// Versions: every version is a row of its own, grouped by `familyId` and numbered by `version`. A family has
// at most one Draft (always its newest version) and one current Published version (`supersededAt` null);
// editing the current published version copies it into a new Draft (save-template-definition.ts), and
// publishing the draft sets `supersededAt` on the version it replaces (publish-template.ts). Envelopes point at
// the row they were created from, so they keep their version's roles and fields.
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppUser, StoredFile, Team, Template, TemplateField, TemplateRole } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import type { TemplateDetail } from '../../domain/template-builder.ts';
import type { FileObjects } from '../../storage/file-objects.ts';
import type { SessionPrincipal } from '../accounts/sessions.ts';
import { Conflict, NotFound } from '../errors.ts';
import { inspectPdf } from '../files/inspect-pdf.ts';
import { organizationClient } from '../files/inspection-pool.ts';
import { storedFileBytes } from '../files/stored-file-bytes.ts';
import type { PageSize } from './create-template.ts';

/** Who creates and changes templates: the signed-in user, their organization and their team. */
export interface TemplateActor {
  organizationId: string;
  userId: string;
  teamId: string | null;
}

export function templateActorOf(principal: SessionPrincipal): TemplateActor {
  return {
    organizationId: principal.organization.id,
    userId: principal.user.id,
    teamId: principal.user.teamId ?? null,
  };
}

/** A version of one of the organization's templates that the application shows: 404 for anything else. */
export async function findTemplateVersion(
  em: EntityManager,
  organizationId: string,
  templateId: string,
): Promise<Template> {
  const template = UUID_PATTERN.test(templateId)
    ? await em.findOne(Template, {
        id: templateId,
        organizationId,
        status: { $in: ['Draft', 'Published'] },
        archivedAt: null,
      })
    : null;
  if (!template) throw new NotFound(`Template ${templateId} was not found.`);
  return template;
}

/** Every version of the template's family, newest first. */
export function familyVersions(em: EntityManager, template: Template): Promise<Template[]> {
  return em.find(
    Template,
    { familyId: template.familyId, organizationId: template.organizationId },
    { orderBy: { version: 'desc' } },
  );
}

/**
 * Locks the family's versions until the transaction ends (two editors of one template take turns: a second
 * save of a published version finds the draft the first one made) and answers them, newest first.
 */
export async function lockFamily(tx: EntityManager, template: Template): Promise<Template[]> {
  await tx.execute('select id from template where family_id = ? order by id for update', [template.familyId]);
  return tx.find(
    Template,
    { familyId: template.familyId, organizationId: template.organizationId },
    { orderBy: { version: 'desc' }, refresh: true },
  );
}

/** 409 `template_version_outdated`: changes apply to a template's newest version only. */
export function versionOutdated(template: Template, newest: Template): Conflict {
  return new Conflict(
    `Version ${template.version} of this template is not its newest: version ${newest.version} is. Open that ` +
      'one to change the template.',
    [
      {
        field: 'params.id',
        message: 'not the newest version',
        latestId: newest.id,
        latestVersion: newest.version,
      },
    ],
    'template_version_outdated',
  );
}

/**
 * The size of each page as displayed, in points: measured when the PDF was inspected, or (a template made
 * before versions existed) measured now from the stored PDF and kept.
 */
export async function pagesOf(
  em: EntityManager,
  template: Template,
  files: FileObjects,
): Promise<PageSize[]> {
  if (template.pages && template.pages.length === template.pageCount) return template.pages;
  const file = await em.findOneOrFail(StoredFile, { id: template.fileId });
  const bytes = new Uint8Array(await storedFileBytes(files, file));
  const pdf = await inspectPdf(bytes, {
    maxBytes: bytes.byteLength,
    field: 'id',
    client: organizationClient(template.organizationId),
  });
  template.pages = pdf.pages.map((page) => ({ width: page.width, height: page.height }));
  await em.nativeUpdate(Template, { id: template.id }, { pages: template.pages });
  return template.pages;
}

/** A version as the builder shows it: its roles and fields in order, its pages, its family's versions. */
/** A stored role as a definition names it: what the builder shows and a duplicate copies. */
export function roleDefinition(role: TemplateRole) {
  return {
    name: role.name,
    required: role.required,
    defaultRecipientType: role.defaultRecipientType,
    signingOrder: role.signingOrder,
  };
}

export async function templateDetail(
  em: EntityManager,
  template: Template,
  files: FileObjects,
): Promise<TemplateDetail> {
  const [roles, fields, versions, file, pages, owner, team] = await Promise.all([
    em.find(TemplateRole, { templateId: template.id }, { orderBy: { position: 'asc' } }),
    em.find(TemplateField, { templateId: template.id }, { orderBy: { position: 'asc' } }),
    familyVersions(em, template),
    em.findOneOrFail(StoredFile, { id: template.fileId }),
    pagesOf(em, template, files),
    template.ownerUserId ? em.findOne(AppUser, { id: template.ownerUserId }) : null,
    template.teamId ? em.findOne(Team, { id: template.teamId }) : null,
  ]);
  const roleNames = new Map(roles.map((role) => [role.id, role.name]));
  const newest = versions[0];
  return {
    id: template.id,
    familyId: template.familyId,
    name: template.name,
    status: template.status === 'Published' ? 'Published' : 'Draft',
    version: template.version,
    latest: newest?.id === template.id,
    superseded: template.supersededAt != null,
    filename: file.filename,
    pageCount: template.pageCount,
    pages,
    roles: roles.map(roleDefinition),
    fields: fields.map((field) => ({
      id: field.id,
      type: field.type,
      label: field.label,
      role: roleNames.get(field.roleId) ?? '',
      page: field.page,
      x: field.x,
      y: field.y,
      width: field.width,
      height: field.height,
      required: field.required,
      options: field.options ?? [],
      properties: field.properties ?? {},
    })),
    allowDelegation: template.allowDelegation,
    owner: owner ? { id: owner.id, name: owner.fullName } : null,
    team: team ? { id: team.id, name: team.name } : null,
    createdAt: template.createdAt.toISOString(),
    updatedAt: template.updatedAt.toISOString(),
    publishedAt: template.publishedAt ? template.publishedAt.toISOString() : null,
    versions: versions
      .filter((version) => version.status === 'Draft' || version.status === 'Published')
      .map((version) => ({
        id: version.id,
        version: version.version,
        status: version.status === 'Published' ? ('Published' as const) : ('Draft' as const),
        createdAt: version.createdAt.toISOString(),
        publishedAt: version.publishedAt ? version.publishedAt.toISOString() : null,
        supersededAt: version.supersededAt ? version.supersededAt.toISOString() : null,
      })),
  };
}
