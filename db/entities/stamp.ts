// Personal stamps of organization users and their versions (migration 0016, docs/stamps.md).
import { defineEntity, p } from '@mikro-orm/core';

export const UserStampSchema = defineEntity({
  name: 'UserStamp',
  tableName: 'user_stamp',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    userId: p.uuid(),
    /** Unique among the user's stamps that are not deleted, whatever its case. */
    name: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
    /** Set when the user deleted it: the versions envelopes use stay, the others are removed. */
    deletedAt: p.datetime().nullable(),
  },
});
export class UserStamp extends UserStampSchema.class {}
UserStampSchema.setClass(UserStamp);

export const UserStampVersionSchema = defineEntity({
  name: 'UserStampVersion',
  tableName: 'user_stamp_version',
  properties: {
    id: p.uuid().primary(),
    stampId: p.uuid(),
    /** 1, 2, 3…: the highest is the stamp's current image. */
    version: p.integer(),
    /** The image: a StoredFile of the user's organization. */
    fileId: p.uuid(),
    contentType: p.string().$type<'image/png' | 'image/jpeg'>(),
    width: p.integer(),
    height: p.integer(),
    sizeBytes: p.integer(),
    sha256: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export class UserStampVersion extends UserStampVersionSchema.class {}
UserStampVersionSchema.setClass(UserStampVersion);
