// One error for a Temporal server that would not start (typically the SDK's own download failing offline):
// what went wrong, where Sigil looked, and how to provide the server.
import { NAMES, ProvisioningError, type ServerKind } from '../../provisioning/shared.ts';
import { devServerLookups, howToProvideDevServer } from './temporal-cli.ts';
import { howToProvideTestServer, testServerLookups } from './test-server.ts';

/**
 * Wraps a failure to start a server in ONE error that says what is missing and how to provide it. A
 * ProvisioningError (already explicit) is returned as it is.
 */
export function explainProvisioningFailure(
  kind: ServerKind,
  cause: unknown,
  options: { cacheDir?: string; env?: NodeJS.ProcessEnv } = {},
): Error {
  if (cause instanceof ProvisioningError) return cause;
  const env = options.env ?? process.env;
  const reason = cause instanceof Error ? cause.message : String(cause);
  const lookedAt =
    kind === 'dev-server'
      ? devServerLookups(env, options.cacheDir)
      : testServerLookups(env, options.cacheDir);
  const howTo = kind === 'dev-server' ? howToProvideDevServer() : howToProvideTestServer();
  const message =
    `Could not start the ${NAMES[kind]}:\n  ${reason}\n` +
    `Sigil looks for it in this order:\n${lookedAt.map((item) => `  - ${item}`).join('\n')}\n${howTo}`;
  return new ProvisioningError(kind, message, { cause });
}
