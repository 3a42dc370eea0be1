// Whose personal stamps a signing link may offer (docs/stamps.md, "Signing with a personal stamp"): the
// business app's session cookie reaches the signer page (one origin), and a stamp is offered only when that
// session is a complete one (the route checks it as any `signed-in` application route is checked, and hands
// over null otherwise) of a user whose address is the recipient's own. Anyone else — no session, another
// address, a session waiting for its second step or for MFA enrolment, a recipient without an address — gets
// no stamps and learns nothing about any.
import type { SessionPrincipal } from '../accounts/sessions.ts';
import type { SigningSession } from '../signing/signing-session.ts';
import type { StampOwner } from './stamps.ts';

export function signerStampOwner(
  link: Pick<SigningSession, 'recipient'>,
  principal: SessionPrincipal | null,
): StampOwner | null {
  if (!principal) return null;
  const recipientEmail = link.recipient.email?.trim().toLowerCase();
  if (!recipientEmail || recipientEmail !== principal.user.email.trim().toLowerCase()) return null;
  return principal;
}
