// Bulk send (docs/bulk-send.md): a published template sent to many recipients from a CSV file — checked, started
// as the Temporal workflow `bulk-send/<id>`, followed, cancelled. Everything needs documents:manage.
import {
  BulkSendCheck,
  BulkSendCsvTemplateQuery,
  BulkSendIdParams,
  BulkSendList,
  BulkSendListQuery,
  BulkSendRequest,
  BulkSendRows,
  BulkSendRowsQuery,
  BulkSendView,
} from '../../../domain/bulk-send.ts';
import {
  bulkSendCsvTemplate,
  bulkSendRows,
  cancelBulkSend,
  checkBulkSend,
  getBulkSend,
  listBulkSendRuns,
  startBulkSend,
} from '../../../services/bulk-sends/bulk-sends.ts';
import { areaRoute, type BodyLimit, FileAnswer, principalOf, procedure, router } from '../init.ts';

const route = areaRoute('bulk sends');
const ACCESS = 'documents:manage';
/** Room for the most characters `csv` may have even when every one is sent as a six-byte JSON escape. */
const FILE_BODY: BodyLimit = {
  bytes: 31 * 1024 * 1024,
  purpose: 'the most a bulk send may send (a CSV file of at most 5,000,000 characters)',
};
const INVALID_FILE =
  'Input refused: `invalid_request` naming the field, or `invalid_csv` when the file has problems: a detail ' +
  'for each (`row` as a spreadsheet numbers it, the header being row 1; `column`; `message`), nothing started';
const NO_TEMPLATE = 'No such published template in this organization';
const NO_RUN = 'No such bulk send visible to the signed-in user';

export const bulkSendsRouter = router({
  list: procedure
    .meta(
      route('GET', '/api/bulk-sends', {
        summary: 'Bulk sends, newest first',
        description:
          'The runs the signed-in user started and their team’s (every run of the organization for a role ' +
          'that reads all documents), each with its counts of rows sent, failed, skipped and still to send.',
        access: ACCESS,
      }),
    )
    .input(BulkSendListQuery)
    .output(BulkSendList)
    .query(({ ctx, input }) => listBulkSendRuns(ctx.services, principalOf(ctx), input)),

  csvTemplate: procedure
    .meta(
      route('GET', '/api/bulk-sends/csv-template', {
        summary: 'The CSV header a bulk send of a template needs',
        description:
          'A file with one row: externalReference, `<role>.name`, `<role>.email` and `<role>.phone` for each ' +
          'role, and the label of each field the sender may prefill. `<role>.language` and `title` may be added.',
        access: ACCESS,
        errors: { 404: NO_TEMPLATE },
        file: { contentType: 'text/csv; charset=utf-8', description: 'UTF-8 with a byte-order mark' },
      }),
    )
    .input(BulkSendCsvTemplateQuery)
    .output(FileAnswer)
    .query(({ ctx, input }) => bulkSendCsvTemplate(ctx.services, principalOf(ctx), input.templateId)),

  check: procedure
    .meta(
      route('POST', '/api/bulk-sends/check', {
        summary: 'Check a bulk send’s file without starting it',
        description:
          'Every row checked as POST /api/bulk-sends checks it, and what the plan has left; nothing is stored ' +
          'or sent.',
        access: ACCESS,
        bodyLimit: FILE_BODY,
        errors: { 400: INVALID_FILE, 404: NO_TEMPLATE, 413: 'The request body is larger than 31 MB' },
      }),
    )
    .input(BulkSendRequest)
    .output(BulkSendCheck)
    .mutation(({ ctx, input }) => checkBulkSend(ctx.services, principalOf(ctx), input)),

  start: procedure
    .meta(
      route('POST', '/api/bulk-sends', {
        summary: 'Send a published template to every row of a CSV file',
        description:
          'One envelope per row, sent by the signed-in user. The whole file and the plan’s limits (envelopes ' +
          'left this month, SMS credits) are checked first; then the rows are stored and the Temporal workflow ' +
          '`bulk-send/<id>` sends them. Honours Idempotency-Key.',
        access: ACCESS,
        idempotent: true,
        bodyLimit: FILE_BODY,
        errors: {
          400: INVALID_FILE,
          404: NO_TEMPLATE,
          409:
            '`document_limit_reached`: the plan allows fewer envelopes this month than the file has rows; ' +
            '`sms_credits_exhausted`: the invitations and codes need more SMS credits than are left; or ' +
            '`idempotency_key_reused` / `idempotency_request_in_progress`',
          413: 'The request body is larger than 31 MB',
          503: 'Stored, but Temporal did not confirm the start: the worker starts it within minutes',
        },
      }),
    )
    .input(BulkSendRequest)
    .output(BulkSendView)
    .mutation(({ ctx, input }) => startBulkSend(ctx.services, principalOf(ctx), input)),

  get: procedure
    .meta(
      route('GET', '/api/bulk-sends/{id}', {
        summary: 'One bulk send and its progress',
        access: ACCESS,
        errors: { 404: NO_RUN },
      }),
    )
    .input(BulkSendIdParams)
    .output(BulkSendView)
    .query(({ ctx, input }) => getBulkSend(ctx.services, principalOf(ctx), input.id)),

  rows: procedure
    .meta(
      route('GET', '/api/bulk-sends/{id}/rows', {
        summary: 'A bulk send’s rows, in file order',
        description: 'Each row’s recipients, reference, status, envelope and, for a failed row, why.',
        access: ACCESS,
        errors: { 404: NO_RUN },
      }),
    )
    .input(BulkSendRowsQuery)
    .output(BulkSendRows)
    .query(({ ctx, input }) => bulkSendRows(ctx.services, principalOf(ctx), input)),

  cancel: procedure
    .meta(
      route('POST', '/api/bulk-sends/{id}/cancel', {
        summary: 'Stop a running bulk send',
        description:
          'The rows being sent finish; the others are Skipped and the run becomes Cancelled within seconds.',
        access: ACCESS,
        errors: { 404: NO_RUN, 409: 'The bulk send has ended', 503: 'Temporal did not answer: try again' },
      }),
    )
    .input(BulkSendIdParams)
    .output(BulkSendView)
    .mutation(({ ctx, input }) => cancelBulkSend(ctx.services, principalOf(ctx), input.id)),
});
