// Personal stamps (docs/stamps.md): a signed-in user's own stamp images, kept in versions, which they can
// choose in a Company stamp field when they sign with their own address. The specification names the routes
// and the request body types (CreateUserStampRequest, CreateUserStampVersionRequest, UpdateUserStampRequest);
// their fields are ours. Like domain/account.ts, no schema here carries a global id.
import { z } from 'zod';
import { IsoDateTime, safeText, uuidOf } from './common.ts';

export const STAMP_CONTENT_TYPES = ['image/png', 'image/jpeg'] as const;
export type StampContentType = (typeof STAMP_CONTENT_TYPES)[number];

/** What a stamp image may be, and how many of them a user keeps. */
export const STAMP_LIMITS = {
  /** The decoded image, in bytes (1 MB). */
  maxImageBytes: 1024 * 1024,
  /** Pixels on each side: a stamp smaller than this is illegible, a larger one is a photograph. */
  minSide: 16,
  maxSide: 2000,
  /** Stamps a user keeps (deleted ones do not count). */
  maxStamps: 10,
  /** Versions of one stamp. */
  maxVersions: 10,
} as const;

/** The longest base64 text of an image of `maxImageBytes`. */
export const MAX_STAMP_IMAGE_BASE64_LENGTH = Math.ceil(STAMP_LIMITS.maxImageBytes / 3) * 4;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const StampName = safeText()
  .trim()
  .min(1, 'name is required')
  .max(100, 'name must be at most 100 characters')
  .meta({ description: 'How the stamp is shown (to its owner only), unique among their stamps' });

const StampContentTypeField = z
  .enum(STAMP_CONTENT_TYPES, { message: 'contentType must be image/png or image/jpeg' })
  .meta({ description: 'What the file says it is; the bytes must be such an image (checked by content)' });

const StampImage = z
  .string()
  .min(1, 'imageBase64 is required')
  .max(MAX_STAMP_IMAGE_BASE64_LENGTH, 'imageBase64: the image must be at most 1 MB')
  .regex(BASE64, 'imageBase64 must be the base64 of the image file (without a data: prefix)')
  .meta({
    description:
      'The image file in base64: a PNG or JPEG of at most 1 MB, 16 to 2,000 pixels on each side. Its ' +
      'content decides (magic bytes and a full decode of the structure), not the name or the declared type.',
    contentEncoding: 'base64',
  });

export const CreateUserStampRequest = z.strictObject({
  name: StampName,
  contentType: StampContentTypeField,
  imageBase64: StampImage,
});
export type CreateUserStampRequest = z.input<typeof CreateUserStampRequest>;

/** A new image for a stamp: it becomes the current version; the earlier ones are kept. */
export const CreateUserStampVersionRequest = z.strictObject({
  contentType: StampContentTypeField,
  imageBase64: StampImage,
});
export type CreateUserStampVersionRequest = z.input<typeof CreateUserStampVersionRequest>;

export const UpdateUserStampRequest = z.strictObject({ name: StampName });
export type UpdateUserStampRequest = z.input<typeof UpdateUserStampRequest>;

/** `GET /api/me/stamps/{id}/image`: the current version's image, or the version named. */
export const StampImageQuery = z.object({
  id: uuidOf('id'),
  versionId: uuidOf('versionId')
    .optional()
    .meta({ description: 'A version of the stamp (default: the current one)' }),
});

export const UserStampVersion = z.object({
  id: z.uuid(),
  /** 1 for the first image, then 2, 3…; the highest is the current one. */
  version: z.number().int(),
  contentType: z.enum(STAMP_CONTENT_TYPES),
  width: z.number().int(),
  height: z.number().int(),
  sizeBytes: z.number().int(),
  sha256: z.string(),
  createdAt: IsoDateTime,
});
export type UserStampVersion = z.output<typeof UserStampVersion>;

export const UserStamp = z.object({
  id: z.uuid(),
  name: z.string(),
  /** The version a signer gets when choosing the stamp. */
  current: UserStampVersion,
  /** Every version, newest first (the current one included). */
  versions: z.array(UserStampVersion),
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
});
export type UserStamp = z.output<typeof UserStamp>;

export const UserStampList = z.object({
  /** The user's stamps by name. */
  stamps: z.array(UserStamp),
  limits: z.object({
    maxStamps: z.number().int(),
    maxVersions: z.number().int(),
    maxImageBytes: z.number().int(),
    minSide: z.number().int(),
    maxSide: z.number().int(),
  }),
});
export type UserStampList = z.output<typeof UserStampList>;

// ---- The signer's side (the signer API, /api/signing/{token}/personal-stamps) ------------------------------

/** A stamp offered to a signer who is signed in with the recipient's own address. */
export const PersonalStampOffer = z.object({
  id: z.uuid(),
  name: z.string(),
  /** The current version: what choosing the stamp puts in the field. */
  versionId: z.uuid(),
  version: z.number().int(),
  contentType: z.enum(STAMP_CONTENT_TYPES),
  width: z.number().int(),
  height: z.number().int(),
});
export type PersonalStampOffer = z.output<typeof PersonalStampOffer>;

export const PersonalStampOffers = z.object({
  /** Empty unless the app's session is the recipient's (same address) and the link may act. */
  stamps: z.array(PersonalStampOffer),
});
export type PersonalStampOffers = z.output<typeof PersonalStampOffers>;

export const UsePersonalStampRequest = z.strictObject({
  fieldDefinitionId: uuidOf('fieldDefinitionId'),
  stampId: uuidOf('stampId'),
});
export type UsePersonalStampRequest = z.input<typeof UsePersonalStampRequest>;
