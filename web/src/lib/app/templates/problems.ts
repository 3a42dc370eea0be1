// What stands in the way of saving or publishing a template in the builder, placed where the person can act on
// it: problems the server names `fields.<i>.…` or `roles.<i>.…` (publishing's, or a save's `body.fields.<i>.…`)
// go to that field or role of the document as it was sent, by its key; anything else is listed on its own.
// The page's own checks before a save (a role's name, unique; a field's label) are said the same way.
import type { BuilderField, BuilderRole } from './document.ts';

export interface BuilderProblems {
  /** By field key. */
  fields: Map<string, string[]>;
  /** By role key. */
  roles: Map<string, string[]>;
  others: string[];
}

export const NO_PROBLEMS: BuilderProblems = { fields: new Map(), roles: new Map(), others: [] };

/** A problem as the server details it: the field it names (`fields.2.role`) and its message. */
export interface ProblemDetail {
  field?: unknown;
  message?: unknown;
}

export function problemsOf(
  details: readonly ProblemDetail[],
  document: { fields: readonly BuilderField[]; roles: readonly BuilderRole[] },
): BuilderProblems {
  const found: BuilderProblems = { fields: new Map(), roles: new Map(), others: [] };
  const add = (map: Map<string, string[]>, key: string, message: string) =>
    map.set(key, [...(map.get(key) ?? []), message]);
  for (const detail of details) {
    const message = typeof detail.message === 'string' ? detail.message : '';
    const path = (typeof detail.field === 'string' ? detail.field : '').replace(/^body\./, '').split('.');
    const index = Number(path[1]);
    const field = path[0] === 'fields' && Number.isInteger(index) ? document.fields[index] : undefined;
    const role = path[0] === 'roles' && Number.isInteger(index) ? document.roles[index] : undefined;
    if (field) add(found.fields, field.key, message);
    else if (role) add(found.roles, role.key, message);
    else found.others.push(message);
  }
  return found;
}

/** How many problems there are in all. */
export function problemCount(problems: BuilderProblems): number {
  return (
    [...problems.fields.values(), ...problems.roles.values()].reduce((sum, list) => sum + list.length, 0) +
    problems.others.length
  );
}

/** What the page checks before saving (the server checks everything again), in the page's words. */
export function localProblems(
  document: { fields: readonly BuilderField[]; roles: readonly BuilderRole[] },
  words: { roleNameRequired: string; roleNameTaken: string; labelRequired: string },
): ProblemDetail[] {
  const details: ProblemDetail[] = [];
  const names = document.roles.map((role) => role.name.trim().toLowerCase());
  document.roles.forEach((role, index) => {
    if (!role.name.trim()) details.push({ field: `roles.${index}.name`, message: words.roleNameRequired });
    else if (names.indexOf(role.name.trim().toLowerCase()) !== index)
      details.push({ field: `roles.${index}.name`, message: words.roleNameTaken });
  });
  document.fields.forEach((field, index) => {
    if (!field.label.trim()) details.push({ field: `fields.${index}.label`, message: words.labelRequired });
  });
  return details;
}
