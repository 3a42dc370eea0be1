// What the two Temporal servers' provisioning (temporal-cli.ts, test-server.ts) shares beyond the tools' common
// parts (provisioning/shared.ts): a server is handed to `@temporalio/testing` as an executable, either a path
// Sigil found or built, or the SDK's own download as the last resort.
import { join } from 'node:path';
import type { EphemeralServerExecutable } from '@temporalio/testing';
import type { Provisioned, ProvisionSource, ServerKind } from '../../provisioning/shared.ts';

export interface ProvisionedServer extends Provisioned {
  kind: ServerKind;
  /** What to pass as `server.executable` to `@temporalio/testing`. */
  executable: EphemeralServerExecutable;
}

/** The SDK's own download directory, the last resort for the Temporal servers (needs internet access). */
export function sdkDownloadDir(cacheDir: string): string {
  return join(cacheDir, 'sdk-downloads');
}

export function existingPath(
  kind: ServerKind,
  source: ProvisionSource,
  path: string,
  version: string | undefined,
): ProvisionedServer {
  return { kind, source, executable: { type: 'existing-path', path }, path, version };
}

export function sdkDownload(kind: ServerKind, cacheDir: string): ProvisionedServer {
  return {
    kind,
    source: 'sdk-download',
    executable: { type: 'cached-download', downloadDir: sdkDownloadDir(cacheDir) },
    path: undefined,
    version: undefined,
  };
}
