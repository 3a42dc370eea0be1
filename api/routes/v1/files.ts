// POST /api/v1/files/upload: one PDF as multipart/form-data (a single file part named `file`), checked by
// content and stored; answers the file record.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IsoDateTime } from '../../../domain/common.ts';
import { AppError, InvalidRequest } from '../../../services/errors.ts';
import { fileTooLarge, formatMegabytes, PDF_LIMITS } from '../../../services/files/inspect-pdf.ts';
import { type FileRecord, sanitizeFilename, uploadFile } from '../../../services/files/upload-file.ts';
import { principalOf } from '../../auth/principal.ts';
import { closeWithoutReading } from '../../http/body-limit.ts';
import { setRequestDigest } from '../../plugins/idempotency.ts';
import { ERROR_RESPONSES } from './schemas.ts';
import type { V1Routes } from './types.ts';

/** The multipart field that carries the document. */
export const FILE_FIELD = 'file';
/** Non-file form fields are ignored; these bound what a client can make the server read. */
const MAX_OTHER_FIELDS = 20;
const MAX_FIELD_BYTES = 64 * 1024;
/**
 * What a multipart body may hold besides the file: the other fields, every part's headers and the
 * boundaries. A Content-Length above the file limit plus this cannot carry an acceptable upload.
 */
const MULTIPART_OVERHEAD_BYTES = (MAX_OTHER_FIELDS + 1) * (MAX_FIELD_BYTES + 16 * 1024);

const FileResponse = z
  .object({
    id: z.uuid(),
    name: z.string().meta({ description: 'The uploaded file name, reduced to a safe base name.' }),
    size: z.number().int().min(1).meta({ description: 'Bytes.' }),
    pageCount: z.number().int().min(1),
    sha256: z.string().meta({ description: 'Lowercase hex SHA-256 of the stored bytes.' }),
    contentType: z.literal('application/pdf'),
    createdAt: IsoDateTime,
  })
  .meta({ id: 'File' });

/**
 * Documentation only: zod cannot validate a multipart stream, so the route's validator lets the body
 * through and a preValidation hook reads the parts itself. The schema still renders as the OpenAPI
 * requestBody.
 */
const UploadBody = z.object({
  [FILE_FIELD]: z.file().meta({
    description: 'The PDF document. Exactly one file part; the content decides, not the name or part type.',
  }),
});

interface Upload {
  filename: string;
  bytes: Buffer;
}

/** What the route's preValidation hook read, for its handler. */
const uploads = new WeakMap<FastifyRequest, Upload>();

/** The body is a stream the route reads itself; only the other request parts go through zod. */
const streamBodyValidatorCompiler: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body'
    ? () => ({ value: undefined })
    : zodValidatorCompiler(route as Parameters<typeof zodValidatorCompiler>[0]);

/**
 * The digest the Idempotency-Key check compares for an upload (handed over with setRequestDigest, as the
 * plugin cannot hash a streamed body itself): SHA-256 over the stored (sanitized) file name and the bytes.
 */
export function uploadDigest(filename: string, bytes: Uint8Array): string {
  return createHash('sha256')
    .update(sanitizeFilename(filename), 'utf8')
    .update('\0')
    .update(bytes)
    .digest('hex');
}

export const filesRoutes: V1Routes = async (app, deps) => {
  const maxBytes = deps.config.api.uploadMaxBytes;
  await app.register(multipart, {
    limits: {
      fileSize: maxBytes,
      files: 1,
      fields: MAX_OTHER_FIELDS,
      fieldSize: MAX_FIELD_BYTES,
      parts: MAX_OTHER_FIELDS + 2,
    },
  });

  app.post(
    '/files/upload',
    {
      config: { scope: 'files.write', heavy: true, idempotent: true },
      validatorCompiler: streamBodyValidatorCompiler,
      // The upload is read here, before the preHandler phase, so the Idempotency-Key check (a preHandler)
      // can compare its digest; a refused upload never claims the key.
      preValidation: async (request, reply) => {
        const upload = await readSingleFile(request, reply, maxBytes);
        uploads.set(request, upload);
        setRequestDigest(request, uploadDigest(upload.filename, upload.bytes));
      },
      // Refused before the body was read (401, 403 or 429 from the scope's hooks): Node would otherwise read
      // the whole body to keep the connection, so the connection closes instead.
      onSend: async (request, reply, payload) => {
        if (reply.statusCode >= 400 && !request.raw.complete) closeWithoutReading(request, reply);
        return payload;
      },
      schema: {
        operationId: 'uploadFile',
        summary: 'Upload a PDF source document',
        description: [
          `Send \`multipart/form-data\` with exactly one file part named \`${FILE_FIELD}\`.`,
          `Maximum file size: ${formatMegabytes(maxBytes)} (${maxBytes} bytes); a larger file is refused with 400 and code \`file_too_large\` as soon as the limit is passed, and the connection is closed without reading the rest.`,
          'Accepted type: PDF, recognised by content (a well-formed file starting with `%PDF-`), whatever its name or declared type.',
          `At most ${PDF_LIMITS.maxPages} pages; all streams together may decompress to at most ${formatMegabytes(PDF_LIMITS.maxDecodedBytes)}, and reading the file may take at most ${PDF_LIMITS.maxParseMilliseconds / 1000} seconds.`,
          'Refused with 400 `invalid_request` and the reason: empty, not a well-formed PDF, encrypted (password-protected), damaged or truncated PDFs, PDFs without pages or over a limit, and PDFs with active content (JavaScript, actions that run on events, launch, submit-form, import-data, remote or embedded go-to and rendition actions, rich media, embedded files, XFA forms, links other than http, https, mailto and tel).',
          'Honours `Idempotency-Key`. Counts against the lower rate limit for uploads.',
        ].join('\n\n'),
        tags: ['files'],
        consumes: ['multipart/form-data'],
        body: UploadBody,
        response: { 201: FileResponse, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      const upload = uploads.get(request);
      if (!upload) throw new Error('files/upload: the preValidation hook did not read the upload');
      const file = await uploadFile(request.services, {
        organizationId,
        filename: upload.filename,
        bytes: upload.bytes,
        maxBytes,
      });
      return reply.code(201).send(toResponse(file));
    },
  );
};

function toResponse(file: FileRecord): z.input<typeof FileResponse> {
  return { ...file, createdAt: file.createdAt.toISOString() };
}

const FILE_DETAIL = { field: FILE_FIELD };

/**
 * Reads the one file part of a multipart request; every other shape of request is a 400 saying why. The
 * body is read only up to the limit: a Content-Length beyond what a file within the limit could need is
 * refused before any of the body is read, and a file part is refused the moment it passes the limit.
 */
async function readSingleFile(
  request: FastifyRequest,
  reply: FastifyReply,
  maxBytes: number,
): Promise<Upload> {
  if (!request.isMultipart()) {
    throw new InvalidRequest(
      `Send the file as multipart/form-data with one file part named "${FILE_FIELD}".`,
      [{ ...FILE_DETAIL, message: 'multipart/form-data expected' }],
    );
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes + MULTIPART_OVERHEAD_BYTES) {
    closeWithoutReading(request, reply);
    throw fileTooLarge(maxBytes, FILE_FIELD);
  }
  let upload: Upload | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue;
      if (part.fieldname !== FILE_FIELD) {
        throw new InvalidRequest(
          `The file part is named "${part.fieldname}"; send the file in the part named "${FILE_FIELD}".`,
          [{ field: part.fieldname, message: `unexpected file part; use "${FILE_FIELD}"` }],
        );
      }
      const bytes = await readFilePart(part.file, maxBytes);
      upload = { filename: part.filename, bytes };
    }
  } catch (error) {
    // Refused while the body is still arriving: the rest is not read.
    if (!request.raw.readableEnded) closeWithoutReading(request, reply);
    throw multipartProblem(error, maxBytes);
  }
  if (!upload) {
    throw new InvalidRequest(
      `The request has no file: send the PDF as a multipart/form-data file part named "${FILE_FIELD}".`,
      [{ ...FILE_DETAIL, message: 'required' }],
    );
  }
  return upload;
}

/**
 * The bytes of a file part, refused with file_too_large as soon as busboy reports the part past
 * `limits.fileSize` (its 'limit' event), not when the part ends: busboy would otherwise keep reading (and
 * dropping) the rest of an oversized upload before the refusal could be sent.
 */
async function readFilePart(file: Readable & { truncated?: boolean }, maxBytes: number): Promise<Buffer> {
  const tooLarge = fileTooLarge(maxBytes, FILE_FIELD);
  const onLimit = () => file.destroy(tooLarge);
  file.once('limit', onLimit);
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of file) chunks.push(chunk as Buffer);
  } finally {
    file.off('limit', onLimit);
  }
  if (file.truncated) throw tooLarge;
  return Buffer.concat(chunks);
}

/** The client-facing error for a failure while reading the multipart body. */
function multipartProblem(error: unknown, maxBytes: number): AppError {
  if (error instanceof AppError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return fileTooLarge(maxBytes, FILE_FIELD);
    case 'FST_FILES_LIMIT':
      return new InvalidRequest('Send exactly one file: the request has more than one file part.', [
        { ...FILE_DETAIL, message: 'more than one file' },
      ]);
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new InvalidRequest(
        `The form has too many parts: send one file part named "${FILE_FIELD}" and at most ${MAX_OTHER_FIELDS} other fields.`,
        [{ message: 'too many form parts' }],
      );
    default: {
      const reason = error instanceof Error ? error.message : String(error);
      return new InvalidRequest(`The multipart/form-data body is malformed (${reason}).`, [
        { message: 'malformed multipart body' },
      ]);
    }
  }
}
