// Removing a passkey (docs/accounts.md, "Two-step verification", "Passkeys"): only the user's own (another's
// id is 404, as an unknown one), after re-authentication (password and a current code or a backup code,
// mfa-reauthenticate.ts). When it is the user's last second factor: refused with 403
// `mfa_required_by_organization` when the organization requires two-step verification; else the backup codes
// go too, the user's other sessions end and `user.mfa_disabled` is recorded with `{ method: 'passkey' }`.
import { MfaBackupCode, Passkey } from '../../db/entities/index.ts';
import type { ReauthenticateInput } from '../../domain/account.ts';
import type { ServiceContext } from '../context.ts';
import { AppError, NotFound } from '../errors.ts';
import { withReauthentication } from './mfa-reauthenticate.ts';
import { countPasskeys } from './passkey-webauthn.ts';
import { recordOwnEvent } from './security-log.ts';
import { endUserSessions, type SessionPrincipal } from './sessions.ts';

const requiredByOrganization = () =>
  new AppError(
    403,
    'mfa_required_by_organization',
    'Your organization requires two-step verification: add another passkey or an authenticator app before ' +
      'removing your last one.',
  );

export async function removePasskey(
  ctx: ServiceContext,
  input: {
    principal: SessionPrincipal;
    passkeyId: string;
    credentials: ReauthenticateInput;
    ipAddress: string | null;
  },
): Promise<void> {
  const { principal } = input;
  const notFound = () => new NotFound(`Passkey ${input.passkeyId} was not found.`);
  const found = await ctx.em.findOne(Passkey, { id: input.passkeyId, userId: principal.user.id });
  if (!found) throw notFound();
  const lastFactor = async (userTotp: boolean, em: ServiceContext) =>
    !userTotp && (await countPasskeys(em, principal.user.id)) <= 1;
  if (principal.organization.mfaRequired && (await lastFactor(Boolean(principal.user.totpEnabledAt), ctx))) {
    throw requiredByOrganization();
  }
  await withReauthentication(ctx, input, async ({ ctx: txCtx, user, session }) => {
    const passkey = await txCtx.em.findOne(Passkey, { id: input.passkeyId, userId: user.id });
    if (!passkey) throw notFound();
    const last = await lastFactor(Boolean(user.totpEnabledAt), txCtx);
    if (last && principal.organization.mfaRequired) throw requiredByOrganization();
    await txCtx.em.nativeDelete(Passkey, { id: passkey.id });
    if (!last) return;
    await txCtx.em.nativeDelete(MfaBackupCode, { userId: user.id });
    const ended = await endUserSessions(txCtx, user.id, 'mfa_disabled', session.id);
    recordOwnEvent(txCtx, user, input.ipAddress, {
      type: 'user.mfa_disabled',
      details: { method: 'passkey', otherSessionsEnded: ended },
    });
  });
}
