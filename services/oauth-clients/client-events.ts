// The organization's security log of its OAuth clients (docs/integrations.md): made, changed, deleted, a secret
// rotated or deleted. Recorded in the caller's unit of work, with the change. The actor is the signed-in user
// of the Integrations area; the operator CLI acts as nobody (null). Details never hold a secret, only its hint.
import type { SecurityEventType } from '../../domain/account.ts';
import { recordSecurityEvent } from '../accounts/security-log.ts';
import type { DataContext } from '../context.ts';
import type { CredentialActor } from '../credentials/credential-grants.ts';

/**
 * Who changes an OAuth client through the application: the user, their role's permissions (a key gets no scope
 * they lack: credential-grants.ts) and the address the request came from.
 */
export interface ClientActor extends CredentialActor {
  ipAddress: string | null;
}

export function recordClientEvent(
  ctx: DataContext & { clock?: () => Date },
  organizationId: string,
  type: Extract<SecurityEventType, `api_key.${string}`>,
  actor: ClientActor | undefined,
  details: Record<string, unknown>,
): void {
  recordSecurityEvent(ctx, {
    organizationId,
    type,
    actorUserId: actor?.userId ?? null,
    ipAddress: actor?.ipAddress ?? null,
    details,
  });
}
