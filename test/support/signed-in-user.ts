// A signed-in organization user for tests of the application routes, made with the services themselves (no
// sign-in route needed): an organization (new, or an existing one), an active user with a password and a
// role, and a browser session whose cookie a test sends (`cookie`), as a browser would after signing in.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppUser, Organization, Role } from '../../db/entities/index.ts';
import type { BuiltInRole } from '../../domain/permissions.ts';
import type { PlanName } from '../../domain/vocabulary.ts';
import { startSession } from '../../services/accounts/sessions.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { hashPassword } from '../../services/security/passwords.ts';
import type { TestContext } from './context.ts';

/** What the helpers need of a test's harness (an ApiHarness has it). */
export interface HasOrm {
  ctx: Pick<TestContext, 'orm'>;
}

/** The test configuration's PUBLIC_BASE_URL origin: mutations of the application routes must carry it. */
export const APP_ORIGIN = 'http://localhost:3000';

export interface SignedInUser {
  /** The `Cookie` header value: `sigil_session=<token>`. */
  cookie: string;
  /** Headers for a request as this user: the cookie, and the Origin every mutation needs. */
  headers: { cookie: string; origin: string };
  user: AppUser;
  organization: Organization;
  role: Role;
  email: string;
  password: string;
}

export interface SignedInUserOptions {
  /** A built-in role, or the id of a role of the organization. */
  role: BuiltInRole | string;
  /** An existing organization; absent: a new one on `plan` (default Business). */
  organizationId?: string;
  plan?: PlanName;
  /** A new organization's API flag (default off; the plan must include API access). */
  apiEnabled?: boolean;
  fullName?: string;
  email?: string;
  password?: string;
  /** The session's state (default `active`). */
  sessionState?: 'active' | 'mfa_pending' | 'mfa_enrolment_required';
}

/** One hash for every test user (argon2id is slow on purpose). */
const DEFAULT_PASSWORD = 'correct horse battery staple';
let defaultHash: Promise<string> | undefined;

/** A new active user of the organization with the role, signed in. */
export async function signedInUser(harness: HasOrm, options: SignedInUserOptions): Promise<SignedInUser> {
  const em: EntityManager = harness.ctx.orm.em.fork();
  const organization = options.organizationId
    ? await em.findOneOrFail(Organization, { id: options.organizationId })
    : await createOrganization(
        { em },
        {
          name: `Test org ${randomUUID().slice(0, 8)}`,
          plan: options.plan ?? 'Business',
          apiEnabled: options.apiEnabled ?? false,
        },
      );
  const role = await em.findOneOrFail(
    Role,
    /^[0-9a-f-]{36}$/.test(options.role)
      ? { id: options.role, organizationId: organization.id }
      : { builtIn: options.role, organizationId: organization.id },
  );
  const password = options.password ?? DEFAULT_PASSWORD;
  defaultHash ??= hashPassword(DEFAULT_PASSWORD);
  const passwordHash = password === DEFAULT_PASSWORD ? await defaultHash : await hashPassword(password);
  const email = (options.email ?? `user-${randomUUID()}@example.com`).toLowerCase();
  const user = em.create(AppUser, {
    id: randomUUID(),
    organizationId: organization.id,
    email,
    fullName: options.fullName ?? `${role.name} ${email.slice(5, 11)}`,
    passwordHash,
    status: 'active',
    emailVerifiedAt: new Date(),
    roleId: role.id,
    teamId: null,
    language: 'en',
    totpSecretEncrypted: null,
    totpPendingSecretEncrypted: null,
    totpEnabledAt: null,
    invitedAt: null,
    invitedBy: null,
    lastLoginAt: null,
    deletedAt: null,
  });
  await em.flush();
  const { token } = await startSession({ em }, { user, state: options.sessionState ?? 'active' });
  const cookie = `sigil_session=${token}`;
  return { cookie, headers: { cookie, origin: APP_ORIGIN }, user, organization, role, email, password };
}

/** Another session of an existing user (a new cookie), as a second sign-in would make. */
export async function newSession(
  harness: HasOrm,
  user: AppUser,
  state: 'active' | 'mfa_pending' | 'mfa_enrolment_required' = 'active',
): Promise<{ cookie: string; origin: string }> {
  const { token } = await startSession({ em: harness.ctx.orm.em.fork() }, { user, state });
  return { cookie: `sigil_session=${token}`, origin: APP_ORIGIN };
}
