// Personal stamps (docs/stamps.md): the signed-in user's own stamp images in versions. Every route is the
// user's own business: any role may keep stamps, and a stamp of anyone else is "not found".
import { Ok } from '../../../domain/account.ts';
import {
  CreateUserStampRequest,
  CreateUserStampVersionRequest,
  STAMP_CONTENT_TYPES,
  StampImageQuery,
  UpdateUserStampRequest,
  UserStamp,
  UserStampList,
} from '../../../domain/stamp.ts';
import { addVersionToStamp } from '../../../services/stamps/add-stamp-version.ts';
import { createStamp } from '../../../services/stamps/create-stamp.ts';
import { deleteStamp } from '../../../services/stamps/delete-stamp.ts';
import { listStamps } from '../../../services/stamps/list-stamps.ts';
import { renameStamp } from '../../../services/stamps/rename-stamp.ts';
import { stampImageFile } from '../../../services/stamps/stamp-image-file.ts';
import { areaRoute, type BodyLimit, ImageAnswer, principalOf, procedure, router, thenOk } from '../init.ts';
import { IdParams } from './administration-actor.ts';

const route = areaRoute('stamps');
const ENROLMENT =
  '`mfa_enrolment_required`: the organization requires two-step verification, set it up first';
const NOT_FOUND = 'No such stamp of yours (another user’s stamps and deleted ones are not found either)';
/** An image of 1 MB is 1.4 MB in base64: the JSON body may be up to 2 MB. */
const IMAGE_BODY: BodyLimit = {
  bytes: 2 * 1024 * 1024,
  purpose: 'the most a stamp request may send (an image of at most 1 MB, in base64)',
};
const IMAGE_REFUSED =
  '`body.imageBase64` names an image that is not what it must be: not a PNG or JPEG by its content, not the ' +
  'type `contentType` says, larger than 1 MB, or outside 16 to 2,000 pixels on a side';

export const stampsRouter = router({
  list: procedure
    .meta(
      route('GET', '/api/me/stamps', {
        summary: 'Your personal stamps',
        description:
          'By name, each with its current version and every version (newest first), and the limits.',
        access: 'signed-in',
        errors: { 403: ENROLMENT },
      }),
    )
    .output(UserStampList)
    .query(({ ctx }) => listStamps(ctx.services, principalOf(ctx))),

  create: procedure
    .meta(
      route('POST', '/api/me/stamps', {
        summary: 'Add a personal stamp',
        description: `Its name and its first image (version 1). 400: ${IMAGE_REFUSED}.`,
        access: 'signed-in',
        bodyLimit: IMAGE_BODY,
        errors: {
          403: ENROLMENT,
          409: '`name_taken`: you have a stamp of that name; `stamp_limit`: you keep the most stamps allowed',
        },
      }),
    )
    .input(CreateUserStampRequest)
    .output(UserStamp)
    .mutation(({ ctx, input }) => createStamp(ctx.services, principalOf(ctx), input)),

  addVersion: procedure
    .meta(
      route('POST', '/api/me/stamps/{id}/versions', {
        summary: 'Upload a new version of a personal stamp',
        description:
          'The image becomes the current version; the earlier versions are kept (envelopes that used them ' +
          `keep theirs). 400: ${IMAGE_REFUSED}.`,
        access: 'signed-in',
        bodyLimit: IMAGE_BODY,
        errors: {
          403: ENROLMENT,
          404: NOT_FOUND,
          409: '`version_limit`: the stamp has the most versions allowed',
        },
      }),
    )
    .input(CreateUserStampVersionRequest.extend(IdParams.shape))
    .output(UserStamp)
    .mutation(({ ctx, input }) => {
      const { id, ...image } = input;
      return addVersionToStamp(ctx.services, principalOf(ctx), id, image);
    }),

  update: procedure
    .meta(
      route('PUT', '/api/me/stamps/{id}', {
        summary: 'Rename a personal stamp',
        access: 'signed-in',
        errors: { 403: ENROLMENT, 404: NOT_FOUND, 409: '`name_taken`: you have another stamp of that name' },
      }),
    )
    .input(UpdateUserStampRequest.extend(IdParams.shape))
    .output(UserStamp)
    .mutation(({ ctx, input }) => {
      const { id, ...changes } = input;
      return renameStamp(ctx.services, principalOf(ctx), id, changes);
    }),

  delete: procedure
    .meta(
      route('DELETE', '/api/me/stamps/{id}', {
        summary: 'Delete a personal stamp',
        description:
          'It is no longer listed or offered. The versions an envelope used stay (with their images) as long ' +
          'as the envelope’s field value names them; the others are removed.',
        access: 'signed-in',
        errors: { 403: ENROLMENT, 404: NOT_FOUND },
      }),
    )
    .input(IdParams)
    .output(Ok)
    .mutation(thenOk(({ ctx, input }) => deleteStamp(ctx.services, principalOf(ctx), input.id))),

  image: procedure
    .meta(
      route('GET', '/api/me/stamps/{id}/image', {
        summary: 'The image of a personal stamp',
        description:
          'The current version’s image, or the version `versionId` names, as its own PNG or JPEG bytes. ' +
          '`X-Content-Type-Options: nosniff`; `Cache-Control: private` (a named version never changes: ' +
          '`max-age=86400`; the current one is revalidated: `no-cache`).',
        access: 'signed-in',
        image: { contentTypes: STAMP_CONTENT_TYPES, description: 'The stamp’s image' },
        errors: { 403: ENROLMENT, 404: `${NOT_FOUND}, or no such version of it` },
      }),
    )
    .input(StampImageQuery)
    .output(ImageAnswer)
    .query(async ({ ctx, input }) => {
      const image = await stampImageFile(ctx.services, principalOf(ctx), input.id, input.versionId);
      return {
        contentType: image.contentType,
        content: image.content,
        cacheControl: image.pinned ? 'private, max-age=86400' : 'private, no-cache',
      };
    }),
});
