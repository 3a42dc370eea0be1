// The platform backoffice's administrators and their security (docs/backoffice.md): the specification's
// /api/backoffice/platform-admins routes, and the additive sign-in, session and audit-log routes. Every route
// but the two sign-in steps needs a platform administrator's backoffice session (`access: 'platform-admin'`:
// the backoffice cookie, never an organization user's session); every one of them, the sign-in too, answers
// only addresses on a non-empty backoffice IP allowlist (the transport's hook, api/trpc/fastify.ts).
import {
  AllowedDomainView,
  AuditLogQuery,
  BACKOFFICE_SECURITY,
  BackofficeAuditLog,
  BackofficeIdParameter,
  BackofficeSecurityPolicy,
  BackofficeSessionView,
  CreatedPlatformAdministrator,
  CreatePlatformAdministratorRequest,
  IpAllowlistEntryView,
  Ok,
  PlatformAdministratorList,
  PlatformAdministratorView,
  PlatformAdminOtpSent,
  PlatformAdminSignInRequest,
  RequestPlatformAdminOtpRequest,
  UpdatePlatformAdministratorRequest,
  UpsertPlatformAdminAllowedDomainRequest,
  UpsertPlatformAdminIpAllowlistEntryRequest,
} from '../../../domain/backoffice.ts';
import { listBackofficeAuditLog, recordBackofficeEvent } from '../../../services/backoffice/audit-log.ts';
import { endBackofficeSession } from '../../../services/backoffice/backoffice-sessions.ts';
import {
  requestPlatformAdminOtp,
  signInPlatformAdmin,
} from '../../../services/backoffice/backoffice-sign-in.ts';
import {
  administratorView,
  changePlatformAdminRole,
  createPlatformAdmin,
  listPlatformAdmins,
  removePlatformAdmin,
} from '../../../services/backoffice/platform-admins.ts';
import {
  addAllowedDomain,
  addAllowlistEntry,
  removeAllowedDomain,
  removeAllowlistEntry,
  securityPolicy,
  updateAllowedDomain,
  updateAllowlistEntry,
} from '../../../services/backoffice/security-policy.ts';
import { procedure, router, thenOk } from '../init.ts';
import { adminOf, backofficeActorOf, backofficeRoute } from './backoffice-actor.ts';

const actorOf = backofficeActorOf;

const LOCK_OUT =
  '`would_lock_out`: the list would not have your own address (the message names it); ' +
  'or the entry is already on the list (`conflict`)';
const DOMAIN_IN_USE =
  '`domain_in_use`: administrators have addresses at the domain; or it is already allowed';

export const backofficeAdminsRouter = router({
  list: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/platform-admins', {
        summary: 'The platform administrators',
        description: 'Oldest first, with when and from where each last signed in; `you` marks the caller.',
      }),
    )
    .output(PlatformAdministratorList)
    .query(({ ctx }) => listPlatformAdmins(ctx.services, adminOf(ctx).admin.id)),

  create: procedure
    .meta(
      backofficeRoute('POST', '/api/backoffice/platform-admins', {
        summary: 'Create a platform administrator',
        description:
          'The address must have an allowed email domain. The answer holds the new administrator’s first ' +
          'password, shown this once: hand it over in person (credentials are never emailed).',
        errors: {
          409: '`domain_not_allowed` (the message names the domain) or `platform_admin_exists`',
        },
      }),
    )
    .input(CreatePlatformAdministratorRequest)
    .output(CreatedPlatformAdministrator)
    .mutation(async ({ ctx, input }) => {
      const created = await createPlatformAdmin(ctx.services, actorOf(ctx), input);
      return {
        administrator: administratorView(created.admin, adminOf(ctx).admin.id),
        password: created.password,
      };
    }),

  requestOtp: procedure
    .meta(
      backofficeRoute('POST', '/api/backoffice/platform-admins/otp', {
        summary: 'Sign in to the backoffice, step 1: email and password send a one-time code by email',
        description:
          `The code has ${BACKOFFICE_SECURITY.codeDigits} digits and works once, for ` +
          `${BACKOFFICE_SECURITY.codeLifetimeMinutes} minutes; a new one replaces the previous one. An unknown ` +
          'address and a wrong password are one answer (401 `invalid_credentials`). Throttled per address and ' +
          'per network address as the business app’s sign-in is.',
        access: 'public',
        errors: {
          401: '`invalid_credentials`: the email or the password is wrong (which one is not told)',
          403: 'The caller’s address is not on a non-empty backoffice IP allowlist',
          429: '`rate_limited` (with Retry-After) or `account_locked` after repeated failures',
          503: 'The code could not be emailed',
        },
      }),
    )
    .input(RequestPlatformAdminOtpRequest)
    .output(PlatformAdminOtpSent)
    .mutation(({ ctx, input }) =>
      requestPlatformAdminOtp(ctx.services, input, { ipAddress: ctx.ipAddress, userAgent: ctx.userAgent }),
    ),

  remove: procedure
    .meta(
      backofficeRoute('DELETE', '/api/backoffice/platform-admins/{id}', {
        summary: 'Remove a platform administrator',
        description:
          'Their sessions end. Not the last administrator, and not yourself: another administrator removes you.',
        errors: {
          404: 'No such administrator',
          409: '`last_platform_admin` or `cannot_remove_self`',
        },
      }),
    )
    .input(BackofficeIdParameter)
    .output(Ok)
    .mutation(thenOk(({ ctx, input }) => removePlatformAdmin(ctx.services, actorOf(ctx), input.id))),

  changeRole: procedure
    .meta(
      backofficeRoute('PATCH', '/api/backoffice/platform-admins/{id}', {
        summary: 'Change a platform administrator’s backoffice role',
        description:
          '`administrator` may call every backoffice route; `support` reads what it needs to help a customer ' +
          'and takes the safe actions (docs/backoffice.md, "Roles"). Nobody grants a role above their own; the ' +
          'last administrator keeps the role. Answers the administrator.',
        errors: {
          404: 'No such administrator',
          409: '`last_administrator`: the only administrator cannot be given another role',
        },
      }),
    )
    .input(UpdatePlatformAdministratorRequest.extend(BackofficeIdParameter.shape))
    .output(PlatformAdministratorView)
    .mutation(async ({ ctx, input }) =>
      administratorView(
        await changePlatformAdminRole(ctx.services, actorOf(ctx), input.id, input.role),
        adminOf(ctx).admin.id,
      ),
    ),

  securityPolicy: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/platform-admins/security-policy', {
        summary: 'The backoffice IP allowlist, the allowed email domains and the session and code rules',
        description: '`yourAddress` is the caller’s address as the allowlist sees it.',
      }),
    )
    .output(BackofficeSecurityPolicy)
    .query(({ ctx }) => securityPolicy(ctx.services, ctx.ipAddress)),

  addAllowlistEntry: procedure
    .meta(
      backofficeRoute('POST', '/api/backoffice/platform-admins/ip-allowlist', {
        summary: 'Add an address or CIDR range to the backoffice IP allowlist',
        description:
          'While the list has entries, the backoffice answers only addresses it covers. A list that would not ' +
          'cover the caller’s own address is refused.',
        errors: { 409: LOCK_OUT },
      }),
    )
    .input(UpsertPlatformAdminIpAllowlistEntryRequest)
    .output(IpAllowlistEntryView)
    .mutation(({ ctx, input }) => addAllowlistEntry(ctx.services, actorOf(ctx), input)),

  updateAllowlistEntry: procedure
    .meta(
      backofficeRoute('PUT', '/api/backoffice/platform-admins/ip-allowlist/{id}', {
        summary: 'Change an entry of the backoffice IP allowlist',
        errors: { 404: 'No such entry', 409: LOCK_OUT },
      }),
    )
    .input(UpsertPlatformAdminIpAllowlistEntryRequest.extend(BackofficeIdParameter.shape))
    .output(IpAllowlistEntryView)
    .mutation(({ ctx, input }) => {
      const { id, ...entry } = input;
      return updateAllowlistEntry(ctx.services, actorOf(ctx), id, entry);
    }),

  removeAllowlistEntry: procedure
    .meta(
      backofficeRoute('DELETE', '/api/backoffice/platform-admins/ip-allowlist/{id}', {
        summary: 'Remove an entry of the backoffice IP allowlist',
        description: 'Removing the last entry opens the backoffice to any address.',
        errors: { 404: 'No such entry', 409: LOCK_OUT },
      }),
    )
    .input(BackofficeIdParameter)
    .output(Ok)
    .mutation(({ ctx, input }) => removeAllowlistEntry(ctx.services, actorOf(ctx), input.id)),

  addAllowedDomain: procedure
    .meta(
      backofficeRoute('POST', '/api/backoffice/platform-admins/allowed-domains', {
        summary: 'Allow an email domain for platform administrators’ addresses',
        errors: { 409: 'The domain is already allowed (`conflict`)' },
      }),
    )
    .input(UpsertPlatformAdminAllowedDomainRequest)
    .output(AllowedDomainView)
    .mutation(({ ctx, input }) => addAllowedDomain(ctx.services, actorOf(ctx), input)),

  updateAllowedDomain: procedure
    .meta(
      backofficeRoute('PUT', '/api/backoffice/platform-admins/allowed-domains/{id}', {
        summary: 'Change an allowed email domain',
        description: 'Refused while administrators have addresses at the domain.',
        errors: { 404: 'No such domain', 409: DOMAIN_IN_USE },
      }),
    )
    .input(UpsertPlatformAdminAllowedDomainRequest.extend(BackofficeIdParameter.shape))
    .output(AllowedDomainView)
    .mutation(({ ctx, input }) =>
      updateAllowedDomain(ctx.services, actorOf(ctx), input.id, { domain: input.domain }),
    ),

  removeAllowedDomain: procedure
    .meta(
      backofficeRoute('DELETE', '/api/backoffice/platform-admins/allowed-domains/{id}', {
        summary: 'Remove an allowed email domain',
        description: 'Refused while administrators have addresses at the domain.',
        errors: { 404: 'No such domain', 409: DOMAIN_IN_USE },
      }),
    )
    .input(BackofficeIdParameter)
    .output(Ok)
    .mutation(({ ctx, input }) => removeAllowedDomain(ctx.services, actorOf(ctx), input.id)),

  // ---- Additive: the second sign-in step, the session, the audit log --------------------------------------

  signIn: procedure
    .meta(
      backofficeRoute('POST', '/api/backoffice/session', {
        summary: 'Sign in to the backoffice, step 2: the emailed code starts a backoffice session',
        description:
          'Sets the backoffice session cookie `sigil_backoffice_session` (HttpOnly, SameSite=Strict). The ' +
          `session ends after ${BACKOFFICE_SECURITY.idleTimeoutMinutes} minutes without a request and ` +
          `${BACKOFFICE_SECURITY.absoluteLifetimeHours} hours after sign-in. A wrong, expired or used-up code ` +
          `and an unknown address are one answer; a code takes ${BACKOFFICE_SECURITY.codeMaxAttempts} wrong ` +
          'attempts, then it is used up.',
        access: 'public',
        errors: {
          401: '`invalid_code`: the code is wrong, expired or used up, or the address unknown',
          403: 'The caller’s address is not on a non-empty backoffice IP allowlist',
          429: '`rate_limited` (with Retry-After) or `account_locked` after repeated failures',
        },
      }),
    )
    .input(PlatformAdminSignInRequest)
    .output(BackofficeSessionView)
    .mutation(async ({ ctx, input }) => {
      const signedIn = await signInPlatformAdmin(ctx.services, input, {
        ipAddress: ctx.ipAddress,
        userAgent: ctx.userAgent,
      });
      ctx.cookies.setBackofficeSession(signedIn.token, signedIn.session.expiresAt);
      return {
        administrator: administratorView(signedIn.admin, signedIn.admin.id),
        session: {
          createdAt: signedIn.session.createdAt.toISOString(),
          expiresAt: signedIn.session.expiresAt.toISOString(),
          idleTimeoutMinutes: BACKOFFICE_SECURITY.idleTimeoutMinutes,
        },
      };
    }),

  me: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/session', {
        summary: 'The signed-in platform administrator and their backoffice session',
      }),
    )
    .output(BackofficeSessionView)
    .query(({ ctx }) => {
      const { admin, session } = adminOf(ctx);
      return {
        administrator: administratorView(admin, admin.id),
        session: {
          createdAt: session.createdAt.toISOString(),
          expiresAt: session.expiresAt.toISOString(),
          idleTimeoutMinutes: BACKOFFICE_SECURITY.idleTimeoutMinutes,
        },
      };
    }),

  signOut: procedure
    .meta(
      backofficeRoute('DELETE', '/api/backoffice/session', {
        summary: 'Sign out of the backoffice',
      }),
    )
    .output(Ok)
    .mutation(async ({ ctx }) => {
      const { admin, session } = adminOf(ctx);
      recordBackofficeEvent(ctx.services, actorOf(ctx), {
        action: 'sign_out',
        targetId: admin.id,
        details: { sessionId: session.id },
      });
      await endBackofficeSession(ctx.services, session, 'signed_out');
      ctx.cookies.clearBackofficeSession();
      return { ok: true as const };
    }),

  auditLog: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/audit-log', {
        summary: 'The backoffice audit log, newest first',
        description:
          'Every backoffice action: who (an administrator, the operator CLI, or a visitor signing in), when, ' +
          'from which address and what (an action and its details). A page at a time: `nextCursor` reads the next.',
      }),
    )
    .input(AuditLogQuery)
    .output(BackofficeAuditLog)
    .query(({ ctx, input }) => listBackofficeAuditLog(ctx.services, input)),
});
