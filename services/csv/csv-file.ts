// Reading a CSV file a person saved from a spreadsheet (contacts import, bulk send): csv-parse (RFC 4180: quoted
// cells with commas, quotes and line breaks), a byte-order mark ignored; and the one 400 `invalid_csv` that
// lists every problem by row (as a spreadsheet numbers it: the header is row 1) and column.
import { CsvError, parse } from 'csv-parse/sync';
import { type ErrorDetail, InvalidRequest } from '../errors.ts';

/** Problems listed in one answer (a file with more says how many were left out). */
const MAX_PROBLEMS = 100;

export interface CsvProblem {
  /** The row as a spreadsheet numbers it (the header is row 1); for a file that is not CSV, the line. */
  row?: number;
  line?: number;
  column?: string;
  message: string;
}

/**
 * The file's records, every cell as written; 400 `invalid_csv` for a file that is not CSV, starting with
 * `refused` ("The file was not imported (nothing was changed)").
 */
export function readCsvRecords(csv: string, refused: string): string[][] {
  try {
    return parse(csv, { bom: true, relax_column_count: true, relax_quotes: true }) as string[][];
  } catch (error) {
    if (error instanceof CsvError) {
      const line = Number((error as CsvError & { lines?: number }).lines) || undefined;
      throw invalidCsv([{ ...(line ? { line } : {}), message: csvErrorMessage(error) }], refused);
    }
    throw error;
  }
}

/** The rows after the header that hold anything, each with its number as a spreadsheet shows it (header: 1). */
export function dataRows(records: string[][]): { row: number; cells: string[] }[] {
  return records
    .slice(1)
    .map((cells, index) => ({ row: index + 2, cells }))
    .filter(({ cells }) => !cells.every((cell) => cell.trim() === ''));
}

/** A row with more cells than the header names columns: what is wrong with it, else undefined. */
export function extraCells(row: number, cells: string[], header: string[]): CsvProblem | undefined {
  if (cells.length <= header.length) return undefined;
  return {
    row,
    message: `has ${cells.length} cells but the header names ${header.length} columns (a comma too many, or a cell with a comma that is not in quotes)`,
  };
}

/** The separator a header was written with when it is not a comma (a spreadsheet set to `;` or tabs). */
export function wrongSeparator(cell: string): string | undefined {
  const separator = [';', '\t'].find((candidate) => cell.includes(candidate));
  if (!separator) return undefined;
  return `the columns must be separated by commas, not ${separator === '\t' ? 'tabs' : `"${separator}"`}`;
}

/** 400 `invalid_csv`: `refused`, then the first problems, each naming its row and column, and how many more. */
export function invalidCsv(problems: CsvProblem[], refused: string): InvalidRequest {
  const shown = problems.slice(0, MAX_PROBLEMS);
  const describe = (problem: CsvProblem) =>
    [
      problem.row !== undefined
        ? `row ${problem.row}`
        : problem.line !== undefined
          ? `line ${problem.line}`
          : '',
      problem.column ?? '',
    ]
      .filter(Boolean)
      .join(', ');
  const first = shown[0] as CsvProblem;
  const place = describe(first);
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  const details: ErrorDetail[] = shown.map((problem) => ({ field: 'body.csv', ...problem }));
  if (problems.length > shown.length) {
    details.push({
      field: 'body.csv',
      message: `${problems.length - shown.length} more problems not listed`,
    });
  }
  return new InvalidRequest(
    `${refused}: ${place ? `${place}: ` : ''}${first.message}${more}.`,
    details,
    'invalid_csv',
  );
}

/** csv-parse's refusal in words a person who saved the file from a spreadsheet can act on. */
function csvErrorMessage(error: CsvError): string {
  const line = (error as CsvError & { lines?: number }).lines;
  const where = line ? ` (line ${line})` : '';
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return `a quoted cell is never closed${where}: a " is missing`;
    case 'CSV_INVALID_CLOSING_QUOTE':
      return `a quoted cell has text after its closing quote${where}`;
    default:
      return `the file is not valid CSV${where}: ${error.message}`;
  }
}
