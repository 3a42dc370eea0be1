// The platform administrators (docs/backoffice.md, "Administrators"): list, create (by an administrator, or
// the first one by the operator CLI) and remove. An address must belong to an allowed email domain. A new
// administrator's first password is generated here (or, from the CLI, read from stdin) and shown once: it is
// handed over in person, never emailed. The last administrator cannot be removed, nor can an administrator
// remove themselves (another one must: a removal always takes two people). Each has a backoffice role
// (domain/backoffice-roles.ts): nobody grants a role above their own, and the last administrator keeps theirs.
import { randomUUID } from 'node:crypto';
import {
  PlatformAdmin,
  PlatformAdminAllowedDomain,
  PlatformAdminCode,
  PlatformAdminSession,
} from '../../db/entities/index.ts';
import type { PlatformAdministratorView } from '../../domain/backoffice.ts';
import { BACKOFFICE_ROLE_RANK, type BackofficeRole } from '../../domain/backoffice-roles.ts';
import type { SessionClock } from '../accounts/sessions.ts';
import type { DataContext } from '../context.ts';
import { AppError, Conflict, Forbidden, NotFound } from '../errors.ts';
import { hashPassword } from '../security/passwords.ts';
import { randomToken } from '../security/secrets.ts';
import { type BackofficeActor, recordBackofficeEvent } from './audit-log.ts';

export function administratorView(admin: PlatformAdmin, you: string | null): PlatformAdministratorView {
  return {
    id: admin.id,
    email: admin.email,
    fullName: admin.fullName,
    createdAt: admin.createdAt.toISOString(),
    lastSignInAt: admin.lastSignInAt?.toISOString() ?? null,
    lastSignInAddress: admin.lastSignInIp ?? null,
    role: admin.role,
    you: admin.id === you,
  };
}

export async function listPlatformAdmins(ctx: DataContext, you: string | null) {
  const admins = await ctx.em.find(PlatformAdmin, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return { administrators: admins.map((admin) => administratorView(admin, you)) };
}

export const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/** A generated first password: 24 characters of base64url (144 random bits). */
export const generatedPassword = () => randomToken(18);

export class DomainNotAllowed extends AppError {
  constructor(domain: string) {
    super(
      409,
      'domain_not_allowed',
      `${domain} is not an allowed email domain for platform administrators: add it to the allowed domains first.`,
      [{ field: 'body.email', message: `the domain ${domain} is not allowed`, domain }],
    );
  }
}

/**
 * Creates an administrator. `allowDomain` (the operator CLI's bootstrap): a domain not yet allowed is added to
 * the allowed domains in the same transaction instead of refusing the address.
 */
export async function createPlatformAdmin(
  ctx: DataContext & SessionClock,
  actor: BackofficeActor,
  input: { email: string; fullName: string; password?: string; allowDomain?: boolean; role?: BackofficeRole },
): Promise<{ admin: PlatformAdmin; password: string; domainAdded: string | null }> {
  const role = input.role ?? 'administrator';
  const email = input.email.trim().toLowerCase();
  const domain = domainOf(email);
  const password = input.password ?? generatedPassword();
  const passwordHash = await hashPassword(password);
  return ctx.em.transactional(async (em) => {
    const tx = { ...ctx, em };
    if (actor.kind === 'platform_admin') await refuseAboveOwnRole(em, actor.admin.id, role);
    let domainAdded: string | null = null;
    // Held until commit: a concurrent removal of the domain waits, then counts this administrator.
    const allowed = await em.execute<{ id: string }[]>(
      'select id from platform_admin_allowed_domain where domain = ? for share',
      [domain],
    );
    if (allowed.length === 0) {
      if (!input.allowDomain) throw new DomainNotAllowed(domain);
      const added = em.create(PlatformAdminAllowedDomain, {
        id: randomUUID(),
        domain,
        createdAt: new Date(),
      });
      domainAdded = added.domain;
      recordBackofficeEvent(tx, actor, {
        action: 'allowed_domain.created',
        targetId: added.id,
        details: { domain },
      });
    }
    if (await em.findOne(PlatformAdmin, { email })) {
      throw new Conflict(
        `${email} is already a platform administrator.`,
        [{ field: 'body.email', message: 'already a platform administrator' }],
        'platform_admin_exists',
      );
    }
    const admin = em.create(PlatformAdmin, {
      id: randomUUID(),
      email,
      fullName: input.fullName.trim(),
      passwordHash,
      createdAt: new Date(),
      lastSignInAt: null,
      lastSignInIp: null,
      role,
    });
    recordBackofficeEvent(tx, actor, {
      action: 'platform_admin.created',
      targetId: admin.id,
      details: { email, fullName: admin.fullName, role },
    });
    await em.flush();
    return { admin, password, domainAdded };
  });
}

/**
 * Removes an administrator (their sessions and codes go with them). Refused for the last one (409
 * `last_platform_admin`) and for oneself (409 `cannot_remove_self`). The administrators are locked while
 * counted, so two removals at once cannot leave none.
 */
export async function removePlatformAdmin(
  ctx: DataContext & SessionClock,
  actor: Extract<BackofficeActor, { kind: 'platform_admin' }>,
  id: string,
): Promise<void> {
  await ctx.em.transactional(async (em) => {
    const rows = await em.execute<{ id: string }[]>('select id from platform_admin order by id for update');
    const admin = rows.some((row) => row.id === id) ? await em.findOne(PlatformAdmin, { id }) : null;
    if (!admin) throw new NotFound(`Platform administrator ${id} was not found.`);
    if (rows.length <= 1) {
      throw new Conflict(
        'The last platform administrator cannot be removed: create another administrator first.',
        [],
        'last_platform_admin',
      );
    }
    if (admin.id === actor.admin.id) {
      throw new Conflict(
        'You cannot remove yourself: another platform administrator must do it.',
        [],
        'cannot_remove_self',
      );
    }
    recordBackofficeEvent({ ...ctx, em }, actor, {
      action: 'platform_admin.removed',
      targetId: admin.id,
      details: { email: admin.email, fullName: admin.fullName },
    });
    await em.nativeDelete(PlatformAdminSession, { adminId: admin.id });
    await em.nativeDelete(PlatformAdminCode, { adminId: admin.id });
    em.remove(admin);
    await em.flush();
  });
}

/** Nobody grants more than they hold: 403 when `role` is above the acting administrator's own. */
async function refuseAboveOwnRole(em: DataContext['em'], actorId: string, role: BackofficeRole) {
  const [own] = await em.execute<{ role: BackofficeRole }[]>('select role from platform_admin where id = ?', [
    actorId,
  ]);
  if (!own || BACKOFFICE_ROLE_RANK[own.role] < BACKOFFICE_ROLE_RANK[role]) {
    throw new Forbidden(`You cannot grant the role ${role}: it is above your own.`, [
      { field: 'body.role', message: `above your role ${own?.role ?? 'none'}` },
    ]);
  }
}

/**
 * Changes an administrator's backoffice role (their sessions go on with the new role from their next request).
 * Refused above the actor's own role (403) and for the last administrator's demotion (409
 * `last_administrator`); the administrators are locked while counted, so two demotions at once cannot leave none.
 */
export async function changePlatformAdminRole(
  ctx: DataContext & SessionClock,
  actor: Extract<BackofficeActor, { kind: 'platform_admin' }>,
  id: string,
  role: BackofficeRole,
): Promise<PlatformAdmin> {
  return ctx.em.transactional(async (em) => {
    const rows = await em.execute<{ id: string; role: BackofficeRole }[]>(
      'select id, role from platform_admin order by id for update',
    );
    const current = rows.find((row) => row.id === id);
    const admin = current ? await em.findOne(PlatformAdmin, { id }) : null;
    if (!current || !admin) throw new NotFound(`Platform administrator ${id} was not found.`);
    await refuseAboveOwnRole(
      em,
      actor.admin.id,
      BACKOFFICE_ROLE_RANK[role] > BACKOFFICE_ROLE_RANK[current.role] ? role : current.role,
    );
    if (current.role === role) return admin;
    const administrators = rows.filter((row) => row.role === 'administrator').length;
    if (current.role === 'administrator' && administrators <= 1) {
      throw new Conflict(
        'The last administrator cannot be given another role: make another administrator first.',
        [{ field: 'body.role', message: 'the last administrator' }],
        'last_administrator',
      );
    }
    admin.role = role;
    recordBackofficeEvent({ ...ctx, em }, actor, {
      action: 'platform_admin.role_changed',
      targetId: admin.id,
      details: { email: admin.email, from: current.role, to: role },
    });
    await em.flush();
    return admin;
  });
}
