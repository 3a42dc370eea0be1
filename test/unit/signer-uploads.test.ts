// Values of File upload and Image upload fields as a signer sends them: the bytes must be what the content
// type says (PNG and JPEG by structure, PDF by its header), within the size limit, with a plain file name; the
// stored JSON describes the file. Signature-like images keep their own shape.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inspectJpeg } from '../../pdf/jpeg.ts';
import { checkSignerValue, type SignerValueCheck } from '../../services/fields/field-value.ts';
import { storeSignerValue } from '../../services/fields/store-signer-value.ts';
import { encodeGreyJpeg } from '../support/jpeg.ts';
import { encodePng } from '../support/png.ts';

const imageUpload = { type: 'Image upload' as const };
const fileUpload = { type: 'File upload' as const };
const signature = { type: 'Signature' as const };

const png = encodePng(30, 10, (x) => [x * 8, 0, 0, 255]);
const jpeg = encodeGreyJpeg(2, 1);
// The smallest well-formed PDF the inspector accepts: a catalog, a page tree and one page.
const pdf = Buffer.from(
  '%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n' +
    '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n' +
    '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >> endobj\n' +
    'trailer << /Root 1 0 R >>\n%%EOF\n',
  'latin1',
);

function upload(content: Buffer, contentType: string, filename = 'scan.bin') {
  return { fileBase64: content.toString('base64'), filename, contentType };
}

function failure(check: SignerValueCheck): string {
  expect(check.ok, JSON.stringify(check).slice(0, 200)).toBe(false);
  return check.ok ? '' : check.message;
}

/** Random-looking bytes that are none of the accepted formats. */
function noise(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = 7;
  for (let index = 0; index < length; index += 1) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    bytes[index] = state >> 16;
  }
  return bytes;
}

describe('Image upload values', () => {
  it('accepts a PNG and a JPEG, each checked by its bytes', () => {
    const asPng = checkSignerValue(imageUpload, upload(png, 'image/png', 'logo.png'));
    expect(asPng).toEqual({
      ok: true,
      upload: { content: png, filename: 'logo.png', contentType: 'image/png' },
    });
    const asJpeg = checkSignerValue(imageUpload, upload(jpeg, 'image/jpeg', ' photo.jpg '));
    expect(asJpeg).toEqual({
      ok: true,
      upload: { content: jpeg, filename: 'photo.jpg', contentType: 'image/jpeg' },
    });
  });

  it('refuses PNG bytes sent as image/jpeg, JPEG bytes sent as image/png, and a PDF', () => {
    expect(failure(checkSignerValue(imageUpload, upload(png, 'image/jpeg')))).toBe(
      'the content is not a valid JPEG (not a JPEG file)',
    );
    expect(failure(checkSignerValue(imageUpload, upload(jpeg, 'image/png')))).toBe(
      'the content is not a valid PNG (not a PNG file)',
    );
    expect(failure(checkSignerValue(imageUpload, upload(pdf, 'application/pdf')))).toBe(
      'contentType must be one of: image/png, image/jpeg',
    );
  });

  it('refuses random bytes under every content type', () => {
    const bytes = noise(4096);
    expect(failure(checkSignerValue(imageUpload, upload(bytes, 'image/png')))).toMatch(/not a valid PNG/);
    expect(failure(checkSignerValue(imageUpload, upload(bytes, 'image/jpeg')))).toMatch(/not a valid JPEG/);
    expect(failure(checkSignerValue(fileUpload, upload(bytes, 'application/pdf')))).toMatch(/not a PDF/);
    expect(failure(checkSignerValue(fileUpload, upload(bytes, 'image/png')))).toMatch(/not a valid PNG/);
  });

  it('refuses an image over 2 MB, a file over 4 MB, and accepts 4 MB for a File upload', () => {
    const big = Buffer.concat([pdf, Buffer.alloc(2 * 1024 * 1024)]);
    expect(failure(checkSignerValue(imageUpload, upload(Buffer.concat([jpeg, big]), 'image/jpeg')))).toBe(
      'the file must be at most 2 MB',
    );
    expect(checkSignerValue(fileUpload, upload(big, 'application/pdf')).ok).toBe(true);
    const exactly4 = Buffer.concat([pdf, Buffer.alloc(4 * 1024 * 1024 - pdf.length)]);
    expect(checkSignerValue(fileUpload, upload(exactly4, 'application/pdf')).ok).toBe(true);
    const over4 = Buffer.concat([exactly4, Buffer.from('x')]);
    expect(failure(checkSignerValue(fileUpload, upload(over4, 'application/pdf')))).toBe(
      'the file must be at most 4 MB',
    );
  });

  it('refuses bad file names', () => {
    const bad: [string, RegExp][] = [
      ['', /1-200 characters/],
      ['   ', /1-200 characters/],
      ['x'.repeat(201), /1-200 characters/],
      ['../etc/passwd', /path separators/],
      ['C:\\scan.png', /path separators/],
      ['scan\n.png', /control characters/],
      ['scan\u0000.png', /control characters/],
      ['invoice\u202Egnp.exe', /control characters/],
      ['..', /must name a file/],
    ];
    for (const [filename, message] of bad) {
      expect(failure(checkSignerValue(imageUpload, upload(png, 'image/png', filename))), filename).toMatch(
        message,
      );
    }
    expect(failure(checkSignerValue(imageUpload, { ...upload(png, 'image/png'), filename: 7 }))).toBe(
      'filename must be a string',
    );
    // 200 characters (Hebrew letters count once each) are fine.
    expect(checkSignerValue(imageUpload, upload(png, 'image/png', `${'א'.repeat(196)}.png`)).ok).toBe(true);
  });

  it('refuses other shapes: a string, a data: URL, unknown properties, the signature shape', () => {
    expect(failure(checkSignerValue(imageUpload, 'logo.png'))).toBe(
      'must be an object { fileBase64, filename, contentType }',
    );
    expect(
      failure(
        checkSignerValue(imageUpload, {
          ...upload(png, 'image/png'),
          fileBase64: `data:image/png;base64,${png.toString('base64')}`,
        }),
      ),
    ).toMatch(/without a data: prefix/);
    expect(failure(checkSignerValue(imageUpload, { ...upload(png, 'image/png'), typedName: 'x' }))).toBe(
      'unknown property typedName',
    );
    expect(failure(checkSignerValue(imageUpload, { imagePngBase64: png.toString('base64') }))).toBe(
      'unknown property imagePngBase64',
    );
    expect(checkSignerValue(imageUpload, null)).toEqual({ ok: true, value: null });
  });
});

describe('File upload values', () => {
  it('accepts a PDF, a PNG and a JPEG', () => {
    expect(checkSignerValue(fileUpload, upload(pdf, 'application/pdf', 'contract.pdf'))).toEqual({
      ok: true,
      upload: { content: pdf, filename: 'contract.pdf', contentType: 'application/pdf' },
    });
    expect(checkSignerValue(fileUpload, upload(png, 'image/png')).ok).toBe(true);
    expect(checkSignerValue(fileUpload, upload(jpeg, 'image/jpeg')).ok).toBe(true);
  });

  it('refuses other content types and a PDF without its header', () => {
    expect(failure(checkSignerValue(fileUpload, upload(pdf, 'text/plain')))).toBe(
      'contentType must be one of: application/pdf, image/png, image/jpeg',
    );
    expect(failure(checkSignerValue(fileUpload, upload(pdf.subarray(1), 'application/pdf')))).toBe(
      'the content is not a PDF (it must start with %PDF-)',
    );
  });
});

describe('signature images', () => {
  it('keep { imagePngBase64, typedName? } and refuse the upload shape', () => {
    expect(
      checkSignerValue(signature, { imagePngBase64: png.toString('base64'), typedName: ' Dana ' }),
    ).toEqual({
      ok: true,
      image: { png, typedName: 'Dana' },
    });
    expect(failure(checkSignerValue(signature, upload(png, 'image/png')))).toBe(
      'unknown property fileBase64',
    );
  });
});

describe('inspectJpeg', () => {
  it('reads the size from the frame header', () => {
    expect(inspectJpeg(encodeGreyJpeg(5, 3))).toEqual({ width: 40, height: 24, components: 1 });
  });

  it('refuses truncated, frameless, arithmetic-coded and size-less JPEGs', () => {
    const good = encodeGreyJpeg();
    expect(inspectJpeg(good.subarray(0, 40))).toEqual({ problem: 'truncated JPEG' });
    expect(inspectJpeg(good.subarray(0, good.length - 2))).toEqual({
      problem: 'truncated JPEG (no end of image)',
    });
    const sofAt = good.indexOf(Buffer.from([0xff, 0xc0]));
    const arithmetic = Buffer.from(good);
    arithmetic[sofAt + 1] = 0xc9;
    expect(inspectJpeg(arithmetic)).toEqual({
      problem: 'unsupported JPEG format (only baseline and progressive JPEGs)',
    });
    const noSize = Buffer.from(good);
    noSize.writeUInt16BE(0, sofAt + 5);
    expect(inspectJpeg(noSize)).toEqual({ problem: 'JPEG without a size in its frame header' });
    const withoutFrame = Buffer.concat([good.subarray(0, sofAt), good.subarray(sofAt + 13)]);
    expect(inspectJpeg(withoutFrame)).toEqual({ problem: 'JPEG without a frame header' });
    expect(inspectJpeg(Buffer.from([0xff, 0xd8, 0xff, 0xd9]))).toEqual({ problem: 'truncated JPEG' });
  });
});

describe('storeSignerValue', () => {
  const created: Record<string, unknown>[] = [];
  const tx = {
    create: (_entity: unknown, data: Record<string, unknown>) => {
      created.push(data);
      return data;
    },
  } as unknown as Parameters<typeof storeSignerValue>[0];
  const envelope = { organizationId: '00000000-0000-4000-8000-000000000001' };

  it('stores an upload as a file and returns its description', () => {
    created.length = 0;
    const check = checkSignerValue(fileUpload, upload(pdf, 'application/pdf', 'contract.pdf'));
    if (!check.ok) throw new Error(check.message);
    const value = storeSignerValue(tx, envelope, { label: 'Contract' }, check);
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    expect(value).toEqual({
      fileId: created[0]?.id,
      filename: 'contract.pdf',
      contentType: 'application/pdf',
      sizeBytes: pdf.length,
      sha256,
    });
    expect(created[0]).toMatchObject({
      organizationId: envelope.organizationId,
      filename: 'contract.pdf',
      contentType: 'application/pdf',
      sizeBytes: pdf.length,
      sha256,
    });
    // The bytes are not the row's: the caller puts them through the storage port first (save-signer-fields.ts).
    expect(created[0]).not.toHaveProperty('content');
  });

  it('stores a signature as a PNG with the typed name, and passes plain values through', () => {
    created.length = 0;
    const check = checkSignerValue(signature, { imagePngBase64: png.toString('base64'), typedName: 'Dana' });
    if (!check.ok) throw new Error(check.message);
    expect(storeSignerValue(tx, envelope, { label: 'Client / signature' }, check)).toEqual({
      fileId: created[0]?.id,
      typedName: 'Dana',
    });
    expect(created[0]).toMatchObject({ filename: 'Client  signature.png', contentType: 'image/png' });
    expect(storeSignerValue(tx, envelope, { label: 'x' }, { ok: true, value: 'text' })).toBe('text');
    expect(storeSignerValue(tx, envelope, { label: 'x' }, { ok: true, value: null })).toBeNull();
  });
});
