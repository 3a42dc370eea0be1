// The colour of a role in the builder: each role's fields are outlined in its colour, and the roles panel and
// the palette show it. Six colours, in the roles' order, repeating after the sixth.
export const ROLE_COLORS = 6;

/** The colour class number (0 to 5) of the role at `index`. */
export function roleColor(index: number): number {
  return index < 0 ? 0 : index % ROLE_COLORS;
}
