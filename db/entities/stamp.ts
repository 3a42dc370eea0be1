// Personal stamps of organization users and their versions (migration 0016, docs/stamps.md).
import { defineEntity, p } from '@mikro-orm/core';
import { createdAtColumn, tenantKeys, timestampColumns, uuidKey } from './columns.ts';

export const UserStampSchema = defineEntity({
  name: 'UserStamp',
  tableName: 'user_stamp',
  properties: {
    ...tenantKeys(),
    userId: p.uuid(),
    /** Unique among the user's stamps that are not deleted, whatever its case. */
    name: p.string(),
    ...timestampColumns(),
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
    ...uuidKey(),
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
    ...createdAtColumn(),
  },
});
export class UserStampVersion extends UserStampVersionSchema.class {}
UserStampVersionSchema.setClass(UserStampVersion);
