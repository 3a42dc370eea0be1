// The backoffice's notification templates as its pages use them (docs/backoffice.md, "Notification
// templates"): the answers' types, a template's page path, and which of a refused save's fields is which.
import type { AppOutputs } from '$lib/shared/app-client';

export type NotificationTemplate = AppOutputs['backofficeTemplates']['list']['templates'][number];
export type TemplatePreview = AppOutputs['backofficeTemplates']['preview'];

export const TEMPLATE_FIELDS = ['subject', 'body', 'sms'] as const;
export type TemplateField = (typeof TEMPLATE_FIELDS)[number];

export function templatePath(kind: string, language: string): string {
  return `/backoffice/templates/${encodeURIComponent(kind)}/${encodeURIComponent(language)}`;
}

/** A save's field errors (`templates.0.body`) or a preview's (`body`) by the form's field names. */
export function templateFieldErrors(errors: Record<string, string>): Partial<Record<TemplateField, string>> {
  const fields: Partial<Record<TemplateField, string>> = {};
  for (const [name, message] of Object.entries(errors)) {
    const field = name.replace(/^templates\.\d+\./, '');
    if ((TEMPLATE_FIELDS as readonly string[]).includes(field)) fields[field as TemplateField] ??= message;
  }
  return fields;
}
