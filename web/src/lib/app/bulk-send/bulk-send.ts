// What the bulk send pages (/app/send/bulk and /app/send/bulk/<id>, docs/bulk-send.md) share: the shapes of
// the server's answers (as types), the file's limits (domain/bulk-send.ts, repeated with a type check that they
// match), reading the chosen file, the problems of a refused file, what a column was read as, and the badge
// tone of a run's status and of a row's.
import { get } from 'svelte/store';
import { format } from 'svelte-i18n';
import type { AppOutputs } from '$lib/shared/app-client';
import { requestErrorOf } from '$lib/shared/request-error';
import { isolate } from '$lib/ui/format';
import type { BULK_SEND_LIMITS } from '../../../../../domain/bulk-send.ts';
import type { BulkSendRowStatus, BulkSendStatus } from '../../../../../domain/vocabulary.ts';

export type BulkCheck = AppOutputs['bulkSends']['check'];
export type BulkColumn = BulkCheck['columns'][number];
export type BulkRunSummary = AppOutputs['bulkSends']['list']['items'][number];
export type BulkRun = AppOutputs['bulkSends']['get'];
export type BulkRow = AppOutputs['bulkSends']['rows']['items'][number];

/** The most characters a file may have. */
export const MAX_CSV_CHARACTERS: typeof BULK_SEND_LIMITS.csvCharacters = 5_000_000;
/** The most rows a file may have. */
export const MAX_ROWS: typeof BULK_SEND_LIMITS.rows = 5000;
/** Runs of one page of the bulk page's list. */
export const RUNS_PAGE = 20;

export const RUN_STATUS_TONES: Record<BulkSendStatus, string> = {
  Running: 'info',
  Completed: 'good',
  Cancelled: 'off',
};

export const ROW_STATUS_TONES: Record<BulkSendRowStatus, string> = {
  Pending: 'off',
  Created: 'info',
  Sent: 'good',
  Failed: 'warn',
  Skipped: 'off',
};

/** The chosen file's text and name, or why it cannot be sent (said before asking the server). */
export type ReadFile = { csv: string; filename: string } | { error: string };

export async function readCsv(file: File): Promise<ReadFile> {
  const t = get(format);
  // A character takes at most 4 bytes of UTF-8: a larger file has too many, unread.
  if (file.size > 4 * MAX_CSV_CHARACTERS) return { error: t('bulk.fileTooLarge') };
  let text: string;
  try {
    text = await file.text();
  } catch {
    return { error: t('bulk.fileUnreadable') };
  }
  if (text.length > MAX_CSV_CHARACTERS) return { error: t('bulk.fileTooLarge') };
  if (text.replace(/^\ufeff/, '').trim() === '') return { error: t('bulk.fileEmpty') };
  return { csv: text, filename: file.name.slice(0, 255) };
}

/** A problem of a refused file, with where it is. */
export interface Problem {
  /** The row as a spreadsheet numbers it (the header is row 1). */
  row: number | null;
  /** The file's line, for a file that could not be read as CSV at all. */
  line: number | null;
  column: string;
  message: string;
}

/** The problems of a refusal of the file (400 `invalid_csv`), or undefined for any other failure. */
export function problemsOf(error: unknown): Problem[] | undefined {
  const failure = requestErrorOf(error);
  if (failure.code !== 'invalid_csv') return undefined;
  return failure.details.map((detail) => ({
    row: typeof detail.row === 'number' ? detail.row : null,
    line: typeof detail.line === 'number' ? detail.line : null,
    column: typeof detail.column === 'string' ? detail.column : '',
    message: typeof detail.message === 'string' ? detail.message : '',
  }));
}

/** What a column of the file was read as ("Client: email", "fills 2 fields"). */
export function columnMeaning(column: BulkColumn): string {
  const t = get(format);
  if (column.kind === 'externalReference') return t('bulk.column.externalReference');
  if (column.kind === 'title') return t('bulk.column.title');
  if (column.kind === 'field') return t('bulk.column.field', { values: { count: column.fields } });
  const part = t(
    column.part === 'name'
      ? 'bulk.part.name'
      : column.part === 'email'
        ? 'bulk.part.email'
        : column.part === 'phone'
          ? 'bulk.part.phone'
          : 'bulk.part.language',
  );
  return t('bulk.column.recipient', { values: { role: isolate(column.roleName ?? ''), part } });
}
