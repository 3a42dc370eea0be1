// Cells of the contacts' CSV files that a spreadsheet would run as a formula (CSV injection, OWASP): a cell
// starting with = + - @, a tab or a carriage return is written with a `'` before it, which spreadsheets take
// as "this is text" and do not show; the import removes that one `'` again, so an exported file imports as
// it was. A phone number (`+972…`) is protected too: a spreadsheet would otherwise read it as a formula and
// drop the `+`.
const FORMULA_START = /^[=+\-@\t\r]/;

/** The cell as written to a file: with a leading `'` when it would start a formula. */
export function protectCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** The cell as read from a file: the `'` the export added before a formula's first character removed. */
export function unprotectCell(value: string): string {
  return value.startsWith("'") && FORMULA_START.test(value.slice(1)) ? value.slice(1) : value;
}
