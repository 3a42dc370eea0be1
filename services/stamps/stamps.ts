// What the personal stamps' use cases share (docs/stamps.md): the owner (the signed-in user; a stamp of anyone
// else, a deleted one or an unknown id is "not found"), the answers, storing a version's image, and removing
// the versions nobody needs any more.
//
// How an envelope refers to a stamp version: choosing a stamp in a Company stamp field copies the current
// version's image into a stored file of the envelope's organization, and the field's value is the value of an
// uploaded stamp, `{ fileId, typedName: null }`, plus `personalStamp: { stampId, versionId, version, name }`
// (services/stamps/use-personal-stamp.ts). The envelope thus holds its own copy (its renderers, the
// signer's file route and the replaced-file cleanup work as for an upload, inside the envelope's
// organization); the version row and its file are kept while any field value names the version, so the
// audit trail's "chosen from personal stamps" can be checked against the stamp's own record.
import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { StoredFile, UserStamp, UserStampVersion } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import {
  STAMP_LIMITS,
  type UserStampList,
  type UserStampVersion as UserStampVersionView,
  type UserStamp as UserStampView,
} from '../../domain/stamp.ts';
import type { SessionPrincipal } from '../accounts/sessions.ts';
import { Conflict, NotFound } from '../errors.ts';
import { sanitizeFilename } from '../files/upload-file.ts';
import type { CheckedStampImage } from './stamp-image.ts';

/** Who owns the stamps a route acts on: the signed-in user, in their organization. */
export type StampOwner = Pick<SessionPrincipal, 'user' | 'organization'>;

export function stampNotFound(stampId: string): NotFound {
  return new NotFound(`Stamp ${stampId} was not found.`);
}

export function stampNameTaken(name: string): Conflict {
  return new Conflict(
    `You already have a stamp named "${name}".`,
    [{ field: 'body.name', message: 'already the name of one of your stamps' }],
    'name_taken',
  );
}

/**
 * The owner's stamp that is not deleted; `lock` holds its row until the transaction ends (new versions,
 * renames, deletion and a signer's choice of it are serialized on it). Anyone else's, a deleted one, an
 * unknown or a malformed id: 404.
 */
export async function findOwnStamp(
  em: EntityManager,
  owner: StampOwner,
  stampId: string,
  lock?: 'update' | 'share',
): Promise<UserStamp> {
  const stamp = UUID_PATTERN.test(stampId)
    ? await em.findOne(
        UserStamp,
        { id: stampId, userId: owner.user.id, deletedAt: null },
        lock
          ? {
              lockMode: lock === 'update' ? LockMode.PESSIMISTIC_WRITE : LockMode.PESSIMISTIC_READ,
              refresh: true,
            }
          : {},
      )
    : null;
  if (!stamp) throw stampNotFound(stampId);
  return stamp;
}

/** Whether another stamp of the owner (not deleted) has this name, whatever its case. */
export async function stampNameInUse(
  em: EntityManager,
  userId: string,
  name: string,
  except?: string,
): Promise<boolean> {
  const [row] = await em.execute<{ taken: boolean }[]>(
    `select exists (select 1 from user_stamp where user_id = ? and deleted_at is null
                      and lower(name) = lower(?) and id is distinct from ?::uuid) as taken`,
    [userId, name, except ?? null],
  );
  return row?.taken === true;
}

/** The versions of the stamps, newest first, by stamp. */
export async function versionsOf(
  em: EntityManager,
  stampIds: string[],
): Promise<Map<string, UserStampVersion[]>> {
  const versions =
    stampIds.length === 0
      ? []
      : await em.find(
          UserStampVersion,
          { stampId: { $in: stampIds } },
          { orderBy: { stampId: 'asc', version: 'desc' } },
        );
  const byStamp = new Map<string, UserStampVersion[]>();
  for (const version of versions) {
    const list = byStamp.get(version.stampId) ?? [];
    list.push(version);
    byStamp.set(version.stampId, list);
  }
  return byStamp;
}

export function versionView(version: UserStampVersion): UserStampVersionView {
  return {
    id: version.id,
    version: version.version,
    contentType: version.contentType,
    width: version.width,
    height: version.height,
    sizeBytes: version.sizeBytes,
    sha256: version.sha256,
    createdAt: version.createdAt.toISOString(),
  };
}

/** A stamp as the routes answer it (`versions` newest first: the first is the current one). */
export function stampView(stamp: UserStamp, versions: UserStampVersion[]): UserStampView {
  const [current] = versions;
  if (!current) throw new Error(`stamp ${stamp.id} has no version`);
  return {
    id: stamp.id,
    name: stamp.name,
    current: versionView(current),
    versions: versions.map(versionView),
    createdAt: stamp.createdAt.toISOString(),
    updatedAt: stamp.updatedAt.toISOString(),
  };
}

export async function stampViewOf(em: EntityManager, stamp: UserStamp): Promise<UserStampView> {
  const versions = await versionsOf(em, [stamp.id]);
  return stampView(stamp, versions.get(stamp.id) ?? []);
}

export function stampLimits(): UserStampList['limits'] {
  const { maxStamps, maxVersions, maxImageBytes, minSide, maxSide } = STAMP_LIMITS;
  return { maxStamps, maxVersions, maxImageBytes, minSide, maxSide };
}

/**
 * Adds a checked image to the unit of work as the stamp's version `version`: a StoredFile of the owner's
 * organization, named after the stamp, whose bytes the caller has put (ctx.files) before (flushed by the caller).
 */
export function addStampVersion(
  tx: EntityManager,
  owner: StampOwner,
  stamp: Pick<UserStamp, 'id' | 'name'>,
  version: number,
  image: CheckedStampImage,
): UserStampVersion {
  const extension = image.contentType === 'image/png' ? 'png' : 'jpg';
  const file = tx.create(StoredFile, {
    id: randomUUID(),
    organizationId: owner.organization.id,
    filename: sanitizeFilename(`${stamp.name.slice(0, 100)} v${version}.${extension}`),
    contentType: image.contentType,
    sizeBytes: image.bytes.byteLength,
    sha256: image.sha256,
    pageCount: null,
  });
  return tx.create(UserStampVersion, {
    id: randomUUID(),
    stampId: stamp.id,
    version,
    fileId: file.id,
    contentType: image.contentType,
    width: image.width,
    height: image.height,
    sizeBytes: image.bytes.byteLength,
    sha256: image.sha256,
  });
}

/**
 * Removes the versions of deleted stamps that no envelope's field value names any more, with their files:
 * every such version of the user's stamps, or only those among `versionIds` (a signer's value replaced).
 * Returns how many went.
 */
export async function removeUnusedVersions(
  tx: Pick<EntityManager, 'execute'>,
  scope: { userId: string } | { versionIds: string[] },
): Promise<number> {
  const byUser = 'userId' in scope;
  // Ids read from stored values: only well-formed ones can name a version.
  const versionIds = byUser ? [] : scope.versionIds.filter((id) => UUID_PATTERN.test(id));
  if (!byUser && versionIds.length === 0) return 0;
  const removed = await tx.execute<{ file_id: string }[]>(
    `delete from user_stamp_version v
      using user_stamp s
      where s.id = v.stamp_id and s.deleted_at is not null
        and ${byUser ? 's.user_id = ?' : 'v.id = any(?::uuid[])'}
        and not exists (
          select 1 from envelope_field_value f
           where f.value -> 'personalStamp' is not null
             and (f.value -> 'personalStamp') ->> 'versionId' = v.id::text)
      returning v.file_id`,
    [byUser ? scope.userId : `{${versionIds.join(',')}}`],
  );
  if (removed.length > 0) {
    await tx.execute('delete from stored_file where id = any(?::uuid[])', [
      `{${removed.map((row) => row.file_id).join(',')}}`,
    ]);
  }
  return removed.length;
}
