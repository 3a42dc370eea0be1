// A platform administrator for tests of the backoffice's routes, made with the services themselves (no sign-in
// route needed): an administrator at a domain of the test run's own (allowed as the operator CLI allows it) and a
// backoffice session, whose cookie a test sends. The sign-in itself is tested in backoffice-admins.test.ts.
import { randomUUID } from 'node:crypto';
import type { PlatformAdmin } from '../../db/entities/index.ts';
import type { BackofficeRole } from '../../domain/backoffice-roles.ts';
import { startBackofficeSession } from '../../services/backoffice/backoffice-sessions.ts';
import { createPlatformAdmin } from '../../services/backoffice/platform-admins.ts';
import type { HasOrm } from './signed-in-user.ts';

export const BACKOFFICE_COOKIE = 'sigil_backoffice_session';

export interface SignedInAdmin {
  admin: PlatformAdmin;
  /** The `Cookie` header value: `sigil_backoffice_session=<token>`. */
  cookie: string;
  /** Headers for a request as this administrator: the cookie, and the Origin every mutation needs. */
  headers: { cookie: string; origin: string };
}

/** A new platform administrator (at a domain of its own) with the backoffice `role`, signed in to the backoffice. */
export async function signedInAdmin(
  harness: HasOrm,
  label = 'admin',
  role: BackofficeRole = 'administrator',
): Promise<SignedInAdmin> {
  const em = harness.ctx.orm.em.fork();
  const domain = `${label}-${randomUUID().slice(0, 8)}.example.test`;
  const { admin } = await createPlatformAdmin(
    { em },
    { kind: 'operator_cli' },
    { email: `${label}@${domain}`, fullName: `Test ${label}`, allowDomain: true, role },
  );
  const { token } = await startBackofficeSession(
    { em: harness.ctx.orm.em.fork() },
    { admin, ipAddress: '127.0.0.1', userAgent: null },
  );
  const cookie = `${BACKOFFICE_COOKIE}=${token}`;
  return { admin, cookie, headers: { cookie, origin: 'http://localhost:3000' } };
}
