// `sigil storage migrate --to s3|postgres`: moves every stored file's object to the other store while the service
// runs (services/storage/migrate-objects.ts; the operator's steps are in docs/deployment.md "Object storage").
// Progress goes to stderr every few seconds (objects done / total, bytes, rate); the exit code is 0 only when
// nothing is left at the source.
import type { Config } from '../../config/config.ts';
import type { DataContext } from '../../services/context.ts';
import { AppError } from '../../services/errors.ts';
import { type MigrationProgress, migrateObjects } from '../../services/storage/migrate-objects.ts';
import { createObjectStores } from '../../services/storage/object-stores.ts';

export const STORAGE_CLI_USAGE = `  storage migrate --to s3|postgres
                  moves every stored file's bytes to the other store, verified by SHA-256; safe while the
                  service runs, resumable (run it again after an interruption); exit 0 once none is left
`;

export const STORAGE_CLI_OPTIONS = {
  to: { type: 'string' },
} as const;

interface StorageCliValues {
  to?: string;
}

interface CliRuntime {
  data(): Promise<DataContext & { config: Config }>;
}

type Output = { json: unknown; text: string };

const MB = 1024 * 1024;

/** One progress line: objects done / total, megabytes, rate. */
export function progressLine(progress: MigrationProgress): string {
  return (
    `storage migrate to ${progress.to}: ${progress.done}/${progress.total} objects, ` +
    `${(progress.bytes / MB).toFixed(1)}/${(progress.totalBytes / MB).toFixed(1)} MB, ` +
    `${(progress.rate / MB).toFixed(2)} MB/s, ${(progress.elapsedMs / 1000).toFixed(0)} s`
  );
}

export const STORAGE_COMMANDS: Record<
  string,
  (values: StorageCliValues, runtime: CliRuntime) => Promise<Output>
> = {
  'storage migrate': async (values, runtime) => {
    const { em, config } = await runtime.data();
    const stores = createObjectStores(config.storage, em);
    try {
      const result = await migrateObjects({
        em,
        databaseUrl: config.database.url,
        stores,
        to: values.to ?? '',
        onProgress: (progress) => process.stderr.write(`${progressLine(progress)}\n`),
      });
      const summary = {
        to: result.to,
        moved: result.done,
        bytes: result.bytes,
        leftoversDeleted: result.leftoversDeleted,
        failed: result.failed,
        remaining: result.remaining,
        remainingCopies: result.remainingCopies,
        seconds: Math.round(result.elapsedMs / 1000),
      };
      if (result.remaining > 0 || result.remainingCopies > 0 || result.failed.length > 0) {
        throw new AppError(
          409,
          'objects_left',
          `${result.remaining} object(s) are still in ${result.to === 's3' ? 'postgres' : 's3'}` +
            (result.remainingCopies > 0
              ? ` and ${result.remainingCopies} moved object(s) still have a copy there`
              : '') +
            ` (${result.done} moved, ${result.failed.length} failed). New files keep going to STORAGE: switch it, ` +
            'restart, and run the migration again.',
          result.failed.map((failure) => ({ field: failure.key, message: failure.reason })),
        );
      }
      return {
        json: summary,
        text:
          `storage migrate to ${result.to}: done, ${result.done} object(s) moved ` +
          `(${(result.bytes / MB).toFixed(1)} MB in ${summary.seconds} s), ` +
          `${result.leftoversDeleted} copy(ies) left by an earlier run deleted; nothing left at the source`,
      };
    } finally {
      stores.close();
    }
  },
};
