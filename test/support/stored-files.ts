// A stored file's bytes for tests: read through the process's FileObjects (verified, wherever the object is),
// or replaced by others — a new object, the row pointed at it — to break a document on purpose.
import { StoredFile } from '../../db/entities/index.ts';
import type { TestContext } from './context.ts';

type FilesOf = Pick<TestContext, 'orm' | 'files'>;

/** The bytes of the stored file `fileId`. */
export async function storedBytes(ctx: FilesOf, fileId: string): Promise<Buffer> {
  const file = await ctx.orm.em.fork().findOneOrFail(StoredFile, { id: fileId });
  return ctx.files.readAll(file.sha256);
}

/** Makes `fileId` a file of `bytes` (stored first, as any file is); answers how to give it its bytes back. */
export async function replaceStoredBytes(
  ctx: FilesOf,
  fileId: string,
  bytes: Uint8Array,
): Promise<() => Promise<void>> {
  const file = await ctx.orm.em.fork().findOneOrFail(StoredFile, { id: fileId });
  const before = { sha256: file.sha256, sizeBytes: file.sizeBytes };
  const stored = await ctx.files.put(bytes);
  await ctx.orm.em
    .fork()
    .nativeUpdate(StoredFile, { id: fileId }, { sha256: stored.key, sizeBytes: stored.size });
  return async () => {
    await ctx.orm.em.fork().nativeUpdate(StoredFile, { id: fileId }, before);
  };
}
