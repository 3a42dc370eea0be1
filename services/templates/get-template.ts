// One published template of an organization with its roles and field definitions. A draft, an archived
// template, another organization's template, an unknown id and a malformed id are all "not found". A published
// version a later one replaced (docs/templates.md) is still shown: envelopes created from it name it.
import { Template } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import type { TemplateView } from '../../domain/template.ts';
import type { DataContext } from '../context.ts';
import { NotFound } from '../errors.ts';
import { describeTemplates } from './list-templates.ts';

export async function getTemplate(
  ctx: DataContext,
  organizationId: string,
  templateId: string,
): Promise<TemplateView> {
  const { em } = ctx;
  const template = UUID_PATTERN.test(templateId)
    ? await em.findOne(Template, { id: templateId, organizationId, status: 'Published', archivedAt: null })
    : null;
  const [view] = template ? await describeTemplates(em, [template]) : [];
  if (!view) throw new NotFound(`Template ${templateId} was not found.`);
  return view;
}
