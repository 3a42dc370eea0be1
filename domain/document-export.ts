// The documents list as a CSV file (GET /api/documents/export, docs/documents.md): the list's query without its
// paging — the tab, the search and the filters — and the file's columns and bound.
import { z } from 'zod';
import { DocumentListQuery } from './document.ts';

export const DOCUMENT_EXPORT_LIMITS = {
  /** Envelopes in one file: a view with more is refused (400 `export_too_large`) and must be narrowed. */
  rows: 10_000,
  /** Envelopes read from the database at a time while the file is written. */
  page: 500,
} as const;

/** The file's columns, in order (the header row). */
export const DOCUMENT_CSV_COLUMNS = [
  'title',
  'status',
  'template',
  'sender',
  'recipients',
  'created_at',
  'updated_at',
  'deadline',
  'completed_at',
] as const;

const List = DocumentListQuery.shape;

export const DocumentExportQuery = z
  .object({
    tab: List.tab,
    search: List.search,
    from: List.from,
    to: List.to,
    sender: List.sender,
    teamId: List.teamId,
    templateId: List.templateId,
  })
  .superRefine((query, ctx) => {
    if (query.from && query.to && Date.parse(query.to) <= Date.parse(query.from)) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be later than from' });
    }
  });
export type DocumentExportQuery = z.output<typeof DocumentExportQuery>;
