// The emails of the accounts (docs/accounts.md, "Emailed links"): confirm an email address, reset a password,
// join an organization, and the notice that someone tried to register with an address that has an account.
// They go out like every other email (notifications/deliver.ts): by SMTP when this server has it, else in
// development and test into the development capture (GET /api/dev/notifications), in the addressee's
// language (English or Hebrew, right to left), signed with the organization's sender display name, with its
// Reply-To and footer. Callers send after their transaction commits, so a failed send never leaves a
// half-done change; `sendAccountEmail` reports the outcome and never throws for a failed send: the caller
// answers as it would have (the user can ask again) and the failure is logged without the link.
// The routes that must not tell whether an address has an account (registration, password reset, resending
// the verification) send with `sendAccountEmailLater`, after answering: an SMTP round trip for a known address
// only would otherwise show in the time of the answer.
import type { EntityManager } from '@mikro-orm/postgresql';
import { type AppUser, Organization } from '../../db/entities/index.ts';
import { deliver, deliveryContext, routeFor } from '../../notifications/deliver.ts';
import { NotificationError } from '../../notifications/errors.ts';
import { type AccountEmailKind, renderAccountEmail, senderName } from '../../notifications/messages.ts';
import { storedTemplate } from '../../notifications/templates.ts';
import type { ServiceConfig } from '../context.ts';

export type { AccountEmailKind };

export interface AccountEmail {
  kind: AccountEmailKind;
  /** The addressee's email address. */
  to: string;
  fullName: string;
  language: 'en' | 'he';
  /** Whose branding the email carries (sender display name, Reply-To, footer). */
  organization: Organization;
  /** The absolute link the email carries (see `accountLink`). */
  link: string;
  /** `invite`: the full name of the user who invited. */
  invitedBy?: string;
}

export type AccountEmailOutcome =
  | { status: 'sent'; provider: string }
  | { status: 'failed'; error: string; retryable: boolean };

/** What was sent, for the caller's log (never the link). */
export interface AccountEmailSent {
  kind: AccountEmailKind;
  outcome: AccountEmailOutcome;
}

/** The web app's page for an emailed link: `/app/verify-email?token=…` and so on. */
export function accountLink(
  config: Pick<ServiceConfig, 'publicBaseUrl'>,
  page:
    | 'verify-email'
    | 'reset-password'
    | 'accept-invite'
    | 'sign-in'
    | 'forgot-password'
    | 'confirm-email-change',
  token?: string,
): string {
  const base = `${config.publicBaseUrl.replace(/\/+$/, '')}/app/${page}`;
  return token === undefined ? base : `${base}?token=${encodeURIComponent(token)}`;
}

/** The account email `kind` to `user`, in their language, branded by their organization, carrying `link`. */
export async function accountEmailTo(
  em: EntityManager,
  user: Pick<AppUser, 'email' | 'fullName' | 'language' | 'organizationId'>,
  kind: AccountEmailKind,
  link: string,
): Promise<AccountEmail> {
  const organization = await em.findOneOrFail(Organization, { id: user.organizationId });
  return {
    kind,
    to: user.email,
    fullName: user.fullName,
    language: user.language === 'he' ? 'he' : 'en',
    organization,
    link,
  };
}

/**
 * Renders and sends one account email. Never throws for a failed send (no provider in production, a refused
 * or unreachable SMTP server): the outcome says so, with an error message that holds no link or token.
 */
export async function sendAccountEmail(
  ctx: { em: EntityManager; config: ServiceConfig },
  message: AccountEmail,
): Promise<AccountEmailOutcome> {
  const { organization } = message;
  const branding = {
    organizationName: organization.name,
    senderDisplayName: organization.senderDisplayName ?? null,
    emailFooter: organization.emailFooter ?? null,
  };
  const email = renderAccountEmail(
    {
      kind: message.kind,
      language: message.language,
      branding,
      recipientName: message.fullName,
      email: message.to,
      link: message.link,
      invitedBy: message.invitedBy ?? null,
    },
    await storedTemplate(ctx.em, message.kind, message.language),
  );
  try {
    const route = routeFor(await deliveryContext(ctx.em, ctx.config), 'Email');
    const sent = await deliver(
      ctx.em,
      route,
      {
        channel: 'Email',
        to: message.to,
        text: email.text,
        email: {
          subject: email.subject,
          html: email.html,
          fromName: senderName(branding),
          replyTo: organization.replyToEmail ?? null,
          language: email.language,
        },
      },
      { kind: message.kind, signingLink: message.link, organizationId: organization.id },
    );
    return { status: 'sent', provider: sent.provider };
  } catch (error) {
    if (error instanceof NotificationError) {
      // Provider messages are redacted of credentials (notifications/errors.ts) and never hold the body.
      return { status: 'failed', error: `${error.type}: ${error.message}`, retryable: error.retryable };
    }
    return {
      status: 'failed',
      error: error instanceof Error ? error.name : 'unknown error',
      retryable: true,
    };
  }
}

const pending = new Set<Promise<void>>();

/**
 * Sends the email in the background, in a unit of work of its own, once the caller has answered; `report`
 * gets the outcome (log a failure). The process's pending sends are awaited by `accountEmailsSettled`.
 */
export function sendAccountEmailLater(
  ctx: { em: EntityManager; config: ServiceConfig },
  message: AccountEmail,
  report: (sent: AccountEmailSent) => void,
): void {
  const em = ctx.em.fork();
  const task = sendAccountEmail({ em, config: ctx.config }, message)
    .then(
      (outcome) => report({ kind: message.kind, outcome }),
      (error: unknown) =>
        report({
          kind: message.kind,
          outcome: {
            status: 'failed',
            error: error instanceof Error ? error.name : 'unknown error',
            retryable: true,
          },
        }),
    )
    // A report that throws (a closed logger) must not become an unhandled rejection.
    .catch(() => undefined)
    .finally(() => pending.delete(task));
  pending.add(task);
}

/** Resolves when every email queued by `sendAccountEmailLater` so far has been sent or has failed. */
export async function accountEmailsSettled(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled([...pending]);
}
