// Personal stamps through the whole app on real PostgreSQL (docs/stamps.md): a signed-in user keeps stamps in
// versions (create, list, rename, new version, the image of each version, delete); an image is checked by its
// content (a PNG sent as a JPEG, a text file, an oversized file, pixel sizes out of bounds, a corrupt PNG: 400
// naming body.imageBase64, nothing stored); another user's stamp is "not found" like an unknown one; and on a
// signing link, the stamps are offered only to the business-app session whose address is the recipient's,
// choosing one fills the Company stamp field with the value of an uploaded stamp plus where it came from,
// deleting the stamp keeps the version that value names (and only it), the audit trail lists it as chosen
// from personal stamps and the final PDF draws it (a JPEG).
import { createHash } from 'node:crypto';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PDFDocumentProxy, TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvelopeFieldValue, StoredFile, UserStamp, UserStampVersion } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { asUser } from '../support/app-requests.ts';
import { encodeGreyJpeg } from '../support/jpeg.ts';
import { encodePng } from '../support/png.ts';
import { APP_ORIGIN, newSession, type SignedInUser, signedInUser } from '../support/signed-in-user.ts';
import { storedBytes } from '../support/stored-files.ts';

let harness: ApiHarness;

beforeAll(async () => {
  harness = await openApiHarness();
});
afterAll(() => harness.close());

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A red ring on a transparent square: a stamp-like PNG of `size` pixels. */
function stampPng(size = 64, color = [180, 20, 20, 255]): Buffer {
  const middle = (size - 1) / 2;
  return encodePng(size, size, (x, y) => {
    const distance = Math.hypot(x - middle, y - middle);
    return distance < size / 2 - 1 && distance > size / 2 - 5 ? color : [0, 0, 0, 0];
  });
}

function imageBody(bytes: Buffer, contentType: string) {
  return { contentType, imageBase64: bytes.toString('base64') };
}

async function created(user: SignedInUser, name: string, bytes = stampPng(), contentType = 'image/png') {
  const response = await asUser(harness.app, user, 'POST', '/api/me/stamps', {
    name,
    ...imageBody(bytes, contentType),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as {
    id: string;
    name: string;
    current: { id: string; version: number; contentType: string; width: number; height: number };
    versions: { id: string; version: number }[];
  };
}

async function counts(userId: string, organizationId: string) {
  const em = harness.ctx.orm.em.fork();
  const stamps = await em.find(UserStamp, { userId });
  return {
    stamps: stamps.length,
    versions: await em.count(UserStampVersion, { stampId: { $in: stamps.map((stamp) => stamp.id) } }),
    files: await em.count(StoredFile, { organizationId }),
  };
}

describe('a user’s personal stamps', () => {
  it('creates, lists, renames, adds versions, serves each version’s image and deletes', async () => {
    const user = await signedInUser(harness, { role: 'member' });
    const empty = await asUser(harness.app, user, 'GET', '/api/me/stamps');
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({
      stamps: [],
      limits: { maxStamps: 10, maxVersions: 10, maxImageBytes: 1048576, minSide: 16, maxSide: 2000 },
    });

    const first = stampPng(64);
    const stamp = await created(user, '  Acme Ltd  ', first);
    expect(stamp.name).toBe('Acme Ltd');
    expect(stamp.current).toMatchObject({
      version: 1,
      contentType: 'image/png',
      width: 64,
      height: 64,
      sizeBytes: first.length,
      sha256: sha256(first),
    });
    expect(stamp.versions.map((version) => version.version)).toEqual([1]);

    const renamed = await asUser(harness.app, user, 'PUT', `/api/me/stamps/${stamp.id}`, {
      name: 'חותמת אקמי',
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().name).toBe('חותמת אקמי');

    // A JPEG as the second version: it becomes the current one, the first stays.
    const second = encodeGreyJpeg(6, 4);
    const added = await asUser(
      harness.app,
      user,
      'POST',
      `/api/me/stamps/${stamp.id}/versions`,
      imageBody(second, 'image/jpeg'),
    );
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json().current).toMatchObject({
      version: 2,
      contentType: 'image/jpeg',
      width: 48,
      height: 32,
    });
    expect(added.json().versions.map((version: { version: number }) => version.version)).toEqual([2, 1]);

    const listed = await asUser(harness.app, user, 'GET', '/api/me/stamps');
    expect(listed.json().stamps).toHaveLength(1);
    expect(listed.json().stamps[0]).toMatchObject({
      id: stamp.id,
      name: 'חותמת אקמי',
      current: { version: 2 },
    });

    // The current image, then the first version's by its id: the bytes as uploaded, with their own type.
    const current = await asUser(harness.app, user, 'GET', `/api/me/stamps/${stamp.id}/image`);
    expect(current.statusCode).toBe(200);
    expect(current.headers['content-type']).toBe('image/jpeg');
    expect(current.headers['x-content-type-options']).toBe('nosniff');
    expect(current.headers['cache-control']).toBe('private, no-cache');
    expect(current.headers['content-disposition']).toBe('inline');
    expect(Buffer.compare(current.rawPayload, second)).toBe(0);
    const old = await asUser(
      harness.app,
      user,
      'GET',
      `/api/me/stamps/${stamp.id}/image?versionId=${stamp.current.id}`,
    );
    expect(old.statusCode).toBe(200);
    expect(old.headers['content-type']).toBe('image/png');
    expect(old.headers['cache-control']).toBe('private, max-age=86400');
    expect(Buffer.compare(old.rawPayload, first)).toBe(0);
    // A version of another stamp is not one of this stamp's.
    const other = await created(user, 'Other');
    const mixed = await asUser(
      harness.app,
      user,
      'GET',
      `/api/me/stamps/${stamp.id}/image?versionId=${other.current.id}`,
    );
    expect(mixed.statusCode).toBe(404);
    expect(mixed.json().error.code).toBe('not_found');

    // Names are unique among the user's stamps, whatever the case.
    const taken = await asUser(harness.app, user, 'POST', '/api/me/stamps', {
      name: 'OTHER',
      ...imageBody(first, 'image/png'),
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error).toMatchObject({ code: 'name_taken', details: [{ field: 'body.name' }] });
    const renameTaken = await asUser(harness.app, user, 'PUT', `/api/me/stamps/${stamp.id}`, {
      name: 'other',
    });
    expect(renameTaken.statusCode).toBe(409);

    // Deleted: no longer listed nor served, and its versions (no envelope uses them) are gone with their files.
    const before = await counts(user.user.id, user.organization.id);
    const deleted = await asUser(harness.app, user, 'DELETE', `/api/me/stamps/${stamp.id}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toEqual({ ok: true });
    expect(
      (await asUser(harness.app, user, 'GET', '/api/me/stamps'))
        .json()
        .stamps.map((s: { id: string }) => s.id),
    ).toEqual([other.id]);
    expect((await asUser(harness.app, user, 'GET', `/api/me/stamps/${stamp.id}/image`)).statusCode).toBe(404);
    expect((await asUser(harness.app, user, 'DELETE', `/api/me/stamps/${stamp.id}`)).statusCode).toBe(404);
    const after = await counts(user.user.id, user.organization.id);
    expect(after).toEqual({ stamps: before.stamps, versions: before.versions - 2, files: before.files - 2 });
    const row = await harness.ctx.orm.em.fork().findOneOrFail(UserStamp, { id: stamp.id });
    expect(row.deletedAt).toBeInstanceOf(Date);
    // The name is free again.
    await created(user, 'חותמת אקמי');
  });

  it('stores a PNG larger than 1,000 pixels on its long side scaled down to 1,000, a JPEG as it came', async () => {
    const user = await signedInUser(harness, { role: 'member' });
    const large = stampPng(1600);
    const stamp = await created(user, 'Large stamp', large);
    const image = await asUser(harness.app, user, 'GET', `/api/me/stamps/${stamp.id}/image`);
    expect(image.statusCode).toBe(200);
    const stored = image.rawPayload;
    expect({ width: stored.readUInt32BE(16), height: stored.readUInt32BE(20) }).toEqual({
      width: 1000,
      height: 1000,
    });
    expect(stamp.current).toMatchObject({ width: 1000, height: 1000, sha256: sha256(stored) });
    expect(sha256(stored)).not.toBe(sha256(large));
    const photo = encodeGreyJpeg(200, 150); // 1,600 × 1,200 pixels
    const jpeg = await created(user, 'Large JPEG stamp', photo, 'image/jpeg');
    expect(jpeg.current).toMatchObject({ width: 1600, height: 1200, sha256: sha256(photo) });
  });

  it('refuses an image that is not what it must be with a 400 naming body.imageBase64, storing nothing', async () => {
    const user = await signedInUser(harness, { role: 'sender' });
    const stamp = await created(user, 'Kept');
    const before = await counts(user.user.id, user.organization.id);
    const cases: [string, Buffer, string, RegExp][] = [
      ['a PNG sent as a JPEG', stampPng(), 'image/jpeg', /is a PNG image, not JPEG/],
      ['a JPEG sent as a PNG', encodeGreyJpeg(4, 4), 'image/png', /is a JPEG image, not PNG/],
      [
        'a text file',
        Buffer.from('Just some text, not an image at all.\n'),
        'image/png',
        /not a PNG or JPEG/,
      ],
      ['an empty file', Buffer.alloc(0), 'image/png', /required/],
      ['a truncated PNG', stampPng().subarray(0, 60), 'image/png', /cannot be decoded/],
      [
        'a PNG with a broken checksum',
        (() => {
          const bytes = Buffer.from(stampPng());
          bytes[bytes.length - 20] = (bytes[bytes.length - 20] ?? 0) ^ 0xff;
          return bytes;
        })(),
        'image/png',
        /cannot be decoded/,
      ],
      [
        'a PNG too small to read',
        stampPng(8),
        'image/png',
        /16 to 2,000 pixels on each side \(it is 8 × 8\)/,
      ],
      [
        'a PNG of too many pixels',
        encodePng(2001, 16, () => [0, 0, 0, 255]),
        'image/png',
        /\(it is 2001 × 16\)/,
      ],
      ['a JPEG too small', encodeGreyJpeg(1, 1), 'image/jpeg', /\(it is 8 × 8\)/],
      [
        'an image of more than 1 MB',
        Buffer.concat([encodeGreyJpeg(4, 4), Buffer.alloc(1024 * 1024)]),
        'image/jpeg',
        /at most 1 MB/,
      ],
    ];
    for (const [what, bytes, contentType, message] of cases) {
      for (const [method, url, extra] of [
        ['POST', '/api/me/stamps', { name: `Refused ${what}` }],
        ['POST', `/api/me/stamps/${stamp.id}/versions`, {}],
      ] as const) {
        const response = await asUser(harness.app, user, method, url, {
          ...extra,
          ...imageBody(bytes, contentType),
        });
        expect(response.statusCode, `${what}: ${response.body.slice(0, 300)}`).toBe(400);
        const error = response.json().error;
        expect(error.code, what).toBe('invalid_request');
        expect(error.details, what).toEqual([
          expect.objectContaining({ field: 'body.imageBase64', message: expect.stringMatching(message) }),
        ]);
        expect(error.message, what).toMatch(/^Invalid request: body\.imageBase64: /);
      }
    }
    // Not base64, a data: URL, an unknown type, an unknown field: the schema refuses them, naming each.
    for (const [body, field] of [
      [
        { name: 'x', contentType: 'image/png', imageBase64: 'data:image/png;base64,AAAA' },
        'body.imageBase64',
      ],
      [
        { name: 'x', contentType: 'image/gif', imageBase64: stampPng().toString('base64') },
        'body.contentType',
      ],
      [{ name: '', ...imageBody(stampPng(), 'image/png') }, 'body.name'],
      [{ name: 'a\u0000b', ...imageBody(stampPng(), 'image/png') }, 'body.name'],
      [{ name: 'x', ...imageBody(stampPng(), 'image/png'), filename: 'stamp.png' }, 'body.filename'],
    ] as const) {
      const response = await asUser(harness.app, user, 'POST', '/api/me/stamps', body);
      expect(response.statusCode, response.body).toBe(400);
      expect(
        response.json().error.details.map((detail: { field: string }) => detail.field),
        JSON.stringify(body).slice(0, 80),
      ).toContain(field);
    }
    // A body of more than 2 MB is refused before it is read.
    const huge = await asUser(harness.app, user, 'POST', '/api/me/stamps', {
      name: 'Huge',
      contentType: 'image/png',
      imageBase64: 'A'.repeat(2 * 1024 * 1024 + 10),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error.code).toBe('payload_too_large');
    expect(await counts(user.user.id, user.organization.id)).toEqual(before);
  });

  it('keeps at most ten stamps per user and ten versions per stamp', async () => {
    const user = await signedInUser(harness, { role: 'member' });
    const stamps = [];
    for (let index = 1; index <= 10; index += 1) stamps.push(await created(user, `Stamp ${index}`));
    const eleventh = await asUser(harness.app, user, 'POST', '/api/me/stamps', {
      name: 'Eleventh',
      ...imageBody(stampPng(), 'image/png'),
    });
    expect(eleventh.statusCode).toBe(409);
    expect(eleventh.json().error.code).toBe('stamp_limit');
    const stamp = stamps[0] as { id: string };
    for (let version = 2; version <= 10; version += 1) {
      const added = await asUser(
        harness.app,
        user,
        'POST',
        `/api/me/stamps/${stamp.id}/versions`,
        imageBody(stampPng(16 + version), 'image/png'),
      );
      expect(added.statusCode, added.body).toBe(200);
      expect(added.json().current.version).toBe(version);
    }
    const over = await asUser(
      harness.app,
      user,
      'POST',
      `/api/me/stamps/${stamp.id}/versions`,
      imageBody(stampPng(), 'image/png'),
    );
    expect(over.statusCode).toBe(409);
    expect(over.json().error.code).toBe('version_limit');
    // A deleted stamp frees its place.
    expect((await asUser(harness.app, user, 'DELETE', `/api/me/stamps/${stamp.id}`)).statusCode).toBe(200);
    await created(user, 'Eleventh');
  });

  it('answers another user’s stamp, in the same organization or another, like an unknown one and changes nothing', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const colleague = await signedInUser(harness, { role: 'owner', organizationId: owner.organization.id });
    const stranger = await signedInUser(harness, { role: 'owner' });
    const stamp = await created(owner, 'Mine');
    const before = await counts(owner.user.id, owner.organization.id);
    for (const other of [colleague, stranger]) {
      expect((await asUser(harness.app, other, 'GET', '/api/me/stamps')).json().stamps).toEqual([]);
      for (const [method, url, payload] of [
        ['PUT', `/api/me/stamps/${stamp.id}`, { name: 'Taken over' }],
        ['POST', `/api/me/stamps/${stamp.id}/versions`, imageBody(stampPng(), 'image/png')],
        ['DELETE', `/api/me/stamps/${stamp.id}`, undefined],
        ['GET', `/api/me/stamps/${stamp.id}/image`, undefined],
        ['GET', `/api/me/stamps/${stamp.id}/image?versionId=${stamp.current.id}`, undefined],
      ] as const) {
        const response = await asUser(harness.app, other, method, url, payload);
        expect(response.statusCode, `${method} ${url}`).toBe(404);
        expect(response.json().error).toMatchObject({
          code: 'not_found',
          message: `Stamp ${stamp.id} was not found.`,
        });
      }
    }
    expect(await counts(owner.user.id, owner.organization.id)).toEqual(before);
    expect((await asUser(harness.app, owner, 'GET', '/api/me/stamps')).json().stamps[0].name).toBe('Mine');
    // Signed out: 401; a mutation from another site: 403 before anything runs.
    expect((await asUser(harness.app, null, 'GET', '/api/me/stamps')).statusCode).toBe(401);
    const crossSite = await harness.app.inject({
      method: 'DELETE',
      url: `/api/me/stamps/${stamp.id}`,
      headers: { cookie: owner.cookie, origin: 'https://evil.example' },
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.json().error.code).toBe('cross_site_request');
    expect(await counts(owner.user.id, owner.organization.id)).toEqual(before);
  });
});

// ---- On a signing link --------------------------------------------------------------------------------------

const box = { page: 1, width: 160, height: 24 };
const STAMP_TEMPLATE = {
  name: 'Stamp template',
  roles: [{ name: 'Client', required: true }],
  fields: [
    { type: 'Full name', role: 'Client', label: 'Client name', x: 40, y: 40, required: true, ...box },
    {
      type: 'Company stamp',
      role: 'Client',
      label: 'Company stamp',
      x: 40,
      y: 90,
      ...box,
      width: 90,
      height: 90,
    },
  ],
};

async function stampIntegrator(): Promise<{
  acme: Integrator;
  templateId: string;
  headers: { authorization: string };
}> {
  const acme = await newIntegrator(harness);
  const template = await createTemplate(harness.ctx, {
    organizationId: acme.organizationId,
    pdf: await buildDemoPdf('Stamped agreement'),
    filename: 'stamped.pdf',
    definition: STAMP_TEMPLATE,
    publish: true,
  });
  return { acme, templateId: template.id, headers: await acme.auth() };
}

async function sentTo(
  integrator: { acme: Integrator; templateId: string; headers: { authorization: string } },
  email: string,
) {
  const response = await harness.app.inject({
    method: 'POST',
    url: '/api/v1/envelopes/from-template',
    headers: integrator.headers,
    payload: {
      title: 'Stamped agreement',
      templateId: integrator.templateId,
      recipients: [{ roleName: 'Client', fullName: 'Dana Levi', email, deliveryChannel: 'ManualLink' }],
    },
  });
  expect(response.statusCode, response.body).toBe(201);
  const id = response.json().id as string;
  const sent = await harness.app.inject({
    method: 'POST',
    url: `/api/v1/envelopes/${id}/send`,
    headers: integrator.headers,
  });
  expect(sent.statusCode, sent.body).toBe(200);
  const [link] = await issueSigningLinks(harness.ctx, integrator.acme.organizationId, id);
  const token = link?.url.split('/sign/')[1] as string;
  const view = await harness.app.inject({ method: 'GET', url: `/api/signing/${token}` });
  const fields = Object.fromEntries(
    (view.json().fields as { label: string; fieldDefinitionId: string }[]).map((f) => [
      f.label,
      f.fieldDefinitionId,
    ]),
  );
  return { id, token, fields };
}

/** A signer's request, with the business app's cookie when given (the browser sends it to the same origin). */
function signer(method: 'GET' | 'POST' | 'PUT', url: string, cookie?: string, payload?: unknown) {
  return harness.app.inject({
    method,
    url,
    headers: {
      'user-agent': 'Sigil stamps test',
      ...(cookie ? { cookie } : {}),
      ...(method === 'GET' ? {} : { origin: APP_ORIGIN }),
    },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function download(headers: { authorization: string }, id: string, document: string) {
  for (let attempt = 0; attempt < 150; attempt += 1) {
    const envelope = await harness.app.inject({ method: 'GET', url: `/api/v1/envelopes/${id}`, headers });
    if (envelope.json().status === 'Completed') break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const response = await harness.app.inject({
    method: 'GET',
    url: `/api/v1/envelopes/${id}/documents/${document}`,
    headers,
  });
  expect(response.statusCode, response.body.slice(0, 200)).toBe(200);
  return getDocument({ data: new Uint8Array(response.rawPayload), verbosity: 0 }).promise;
}

async function text(pdf: PDFDocumentProxy): Promise<string> {
  const pages: string[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const items = (await (await pdf.getPage(number)).getTextContent()).items;
    pages.push(
      items
        .filter((item): item is TextItem => 'str' in item)
        .map((item) => item.str)
        .join(' '),
    );
  }
  return pages.join('\n');
}

describe('personal stamps on a signing link', () => {
  it('offers the stamps only to the session of the recipient’s own address, and lets nobody else use one', async () => {
    const integrator = await stampIntegrator();
    const signerUser = await signedInUser(harness, {
      role: 'member',
      email: `Dana-${Date.now()}@Example.com`,
    });
    const stamp = await created(signerUser, 'Dana’s company');
    const somebody = await signedInUser(harness, { role: 'owner' });
    await created(somebody, 'Not for this link');
    // The recipient's address as the sender typed it (another case than the account's).
    const envelope = await sentTo(integrator, signerUser.email.toUpperCase());
    const url = `/api/signing/${envelope.token}/personal-stamps`;

    const offered = await signer('GET', url, signerUser.cookie);
    expect(offered.statusCode, offered.body).toBe(200);
    expect(offered.headers['cache-control']).toBe('private, no-store');
    expect(offered.json()).toEqual({
      stamps: [
        {
          id: stamp.id,
          name: 'Dana’s company',
          versionId: stamp.current.id,
          version: 1,
          contentType: 'image/png',
          width: 64,
          height: 64,
        },
      ],
    });

    // Nobody else learns anything: no session, another user's session, the recipient's session waiting for
    // its second sign-in step or held at MFA enrolment.
    const pending = await newSession(harness, signerUser.user, 'mfa_pending');
    const enrolling = await newSession(harness, signerUser.user, 'mfa_enrolment_required');
    for (const [who, cookie] of [
      ['no session', undefined],
      ['another user', somebody.cookie],
      ['the second step pending', pending.cookie],
      ['MFA enrolment pending', enrolling.cookie],
      ['an unknown cookie', 'sigil_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ] as const) {
      const answer = await signer('GET', url, cookie);
      expect(answer.statusCode, who).toBe(200);
      expect(answer.json(), who).toEqual({ stamps: [] });
      const used = await signer('POST', url, cookie, {
        fieldDefinitionId: envelope.fields['Company stamp'],
        stampId: stamp.id,
      });
      expect(used.statusCode, who).toBe(404);
      expect(used.json().error.message, who).toBe(`Stamp ${stamp.id} was not found.`);
    }
    // Signed in as the recipient: another user's stamp is not found either.
    const theirs = (await asUser(harness.app, somebody, 'GET', '/api/me/stamps')).json().stamps[0]
      .id as string;
    const foreign = await signer('POST', url, signerUser.cookie, {
      fieldDefinitionId: envelope.fields['Company stamp'],
      stampId: theirs,
    });
    expect(foreign.statusCode).toBe(404);
    // Not a Company stamp field of this recipient: 400 naming the field.
    const wrongField = await signer('POST', url, signerUser.cookie, {
      fieldDefinitionId: envelope.fields['Client name'],
      stampId: stamp.id,
    });
    expect(wrongField.statusCode).toBe(400);
    expect(wrongField.json().error.details).toEqual([
      { field: 'body.fieldDefinitionId', message: "not one of this recipient's Company stamp fields" },
    ]);
    const malformed = await signer('POST', url, signerUser.cookie, {
      fieldDefinitionId: 'x',
      stampId: stamp.id,
    });
    expect(malformed.statusCode).toBe(400);
    // From another site, even with the cookie: refused before anything.
    const crossSite = await harness.app.inject({
      method: 'POST',
      url,
      headers: { cookie: signerUser.cookie, origin: 'https://evil.example' },
      payload: { fieldDefinitionId: envelope.fields['Company stamp'], stampId: stamp.id },
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.json().error.code).toBe('cross_site_request');
    expect(await harness.ctx.orm.em.fork().count(EnvelopeFieldValue, { envelopeId: envelope.id })).toBe(0);
    // An unknown link: 404 whoever asks.
    expect(
      (await signer('GET', `/api/signing/${'A'.repeat(43)}/personal-stamps`, signerUser.cookie)).statusCode,
    ).toBe(404);
  });

  it('fills the field with the current version, keeps that version when the stamp is deleted, and records it in the audit trail', async () => {
    const integrator = await stampIntegrator();
    const signerUser = await signedInUser(harness, { role: 'member' });
    const stamp = await created(signerUser, 'Levi Trading');
    const jpeg = encodeGreyJpeg(5, 5);
    const second = await asUser(
      harness.app,
      signerUser,
      'POST',
      `/api/me/stamps/${stamp.id}/versions`,
      imageBody(jpeg, 'image/jpeg'),
    );
    const currentVersion = second.json().current as { id: string; version: number };
    const firstVersion = stamp.current.id;
    const envelope = await sentTo(integrator, signerUser.email);
    const url = `/api/signing/${envelope.token}/personal-stamps`;

    const chosen = await signer('POST', url, signerUser.cookie, {
      fieldDefinitionId: envelope.fields['Company stamp'],
      stampId: stamp.id,
    });
    expect(chosen.statusCode, chosen.body.slice(0, 400)).toBe(200);
    const value = chosen.json().fields.find((f: { label: string }) => f.label === 'Company stamp').value;
    expect(value).toEqual({
      fileId: expect.any(String),
      typedName: null,
      personalStamp: { stampId: stamp.id, versionId: currentVersion.id, version: 2, name: 'Levi Trading' },
    });
    expect(chosen.json().recipient.status).toBe('InProgress');
    // The envelope holds its own copy, in its organization, served to the signer like a saved stamp.
    const em = harness.ctx.orm.em.fork();
    const copy = await em.findOneOrFail(StoredFile, { id: value.fileId });
    expect(copy).toMatchObject({ organizationId: integrator.acme.organizationId, contentType: 'image/jpeg' });
    expect(Buffer.compare(await storedBytes(harness.ctx, copy.id), jpeg)).toBe(0);
    const served = await signer('GET', `/api/signing/${envelope.token}/files/${value.fileId}`);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/jpeg');

    // Choosing again replaces the copy (the earlier one goes, as a replaced upload's does).
    const again = await signer('POST', url, signerUser.cookie, {
      fieldDefinitionId: envelope.fields['Company stamp'],
      stampId: stamp.id,
    });
    const againValue = again.json().fields.find((f: { label: string }) => f.label === 'Company stamp').value;
    expect(againValue.fileId).not.toBe(value.fileId);
    expect(await em.fork().count(StoredFile, { id: value.fileId })).toBe(0);

    // Deleted by its owner: the version the envelope names stays, with its file; the other one goes.
    const versionRow = await em.fork().findOneOrFail(UserStampVersion, { id: currentVersion.id });
    const firstRow = await em.fork().findOneOrFail(UserStampVersion, { id: firstVersion });
    expect((await asUser(harness.app, signerUser, 'DELETE', `/api/me/stamps/${stamp.id}`)).statusCode).toBe(
      200,
    );
    const later = em.fork();
    expect(await later.count(UserStampVersion, { id: currentVersion.id })).toBe(1);
    expect(await later.count(StoredFile, { id: versionRow.fileId })).toBe(1);
    expect(await later.count(UserStampVersion, { id: firstVersion })).toBe(0);
    expect(await later.count(StoredFile, { id: firstRow.fileId })).toBe(0);
    // No longer offered, nor usable, nor shown to its owner.
    expect((await signer('GET', url, signerUser.cookie)).json()).toEqual({ stamps: [] });
    expect(
      (await asUser(harness.app, signerUser, 'GET', `/api/me/stamps/${stamp.id}/image`)).statusCode,
    ).toBe(404);

    const saved = await signer('PUT', `/api/signing/${envelope.token}/fields`, undefined, {
      values: [{ fieldDefinitionId: envelope.fields['Client name'], value: 'Dana Levi' }],
    });
    expect(saved.statusCode, saved.body.slice(0, 300)).toBe(200);
    // Filling another field leaves the stamp (and its kept version) alone.
    expect(await later.fork().count(UserStampVersion, { id: currentVersion.id })).toBe(1);
    const completed = await signer('POST', `/api/signing/${envelope.token}/complete`, undefined, {
      consent: true,
    });
    expect(completed.statusCode, completed.body).toBe(200);

    const finalPdf = await download(integrator.headers, envelope.id, 'final-pdf');
    const operators = await (await finalPdf.getPage(1)).getOperatorList();
    expect(operators.fnArray.filter((op) => op === OPS.paintImageXObject)).toHaveLength(1);
    const audit = await text(await download(integrator.headers, envelope.id, 'audit-trail'));
    for (const expected of [
      'Stamps chosen from personal stamps (1)',
      'Company stamp',
      'Levi Trading, version 2',
      'image/jpeg',
      `SHA-256: ${sha256(jpeg)}`,
    ]) {
      expect(audit).toContain(expected);
    }
  });

  it('lets the version of a deleted stamp go once the field holds something else', async () => {
    const integrator = await stampIntegrator();
    const signerUser = await signedInUser(harness, { role: 'member' });
    const stamp = await created(signerUser, 'Short-lived');
    const envelope = await sentTo(integrator, signerUser.email);
    const chosen = await signer('POST', `/api/signing/${envelope.token}/personal-stamps`, signerUser.cookie, {
      fieldDefinitionId: envelope.fields['Company stamp'],
      stampId: stamp.id,
    });
    expect(chosen.statusCode).toBe(200);
    expect((await asUser(harness.app, signerUser, 'DELETE', `/api/me/stamps/${stamp.id}`)).statusCode).toBe(
      200,
    );
    const em = harness.ctx.orm.em.fork();
    const version = await em.findOneOrFail(UserStampVersion, { id: stamp.current.id });
    // The signer uploads a stamp image of their own instead: nothing names the version any more.
    const replaced = await signer('PUT', `/api/signing/${envelope.token}/fields`, undefined, {
      values: [
        {
          fieldDefinitionId: envelope.fields['Company stamp'],
          value: { imagePngBase64: stampPng(40).toString('base64') },
        },
      ],
    });
    expect(replaced.statusCode, replaced.body.slice(0, 300)).toBe(200);
    expect(await em.fork().count(UserStampVersion, { id: version.id })).toBe(0);
    expect(await em.fork().count(StoredFile, { id: version.fileId })).toBe(0);
  });
});
