// The colour of a role in the builder: each role's fields are outlined in its colour, the roles panel shows it,
// and so does the outline of a new field under the pointer (the role new fields go to). Six colours, in the
// roles' order, repeating after the sixth; a part sets it as its `--role` (a style directive, which the page's
// Content-Security-Policy allows) and fills with it lightened.
export const ROLE_COLORS = ['#2f6fd6', '#b45309', '#0f766e', '#7e22ce', '#be123c', '#4d7c0f'] as const;

/** The colour of the role at `index` (the first one's for none). */
export function roleColor(index: number): string {
  return ROLE_COLORS[index < 0 ? 0 : index % ROLE_COLORS.length] as string;
}
