// The backoffice's security policy (docs/backoffice.md, "IP allowlist" and "Allowed domains"):
// - the IP allowlist: addresses and CIDR ranges; when it has entries, every /api/backoffice/* request from
//   another address is refused (403), the sign-in too. A change that would leave a non-empty list without the
//   address of the administrator making it is refused (409 `would_lock_out`, with the reason);
// - the allowed email domains: an administrator's address must have one of them. A domain that administrators'
//   addresses have cannot be removed or changed (409 `domain_in_use`): remove those administrators first, so
//   that every administrator always matches the list.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  PlatformAdmin,
  PlatformAdminAllowedDomain,
  PlatformAdminIpAllowlistEntry,
} from '../../db/entities/index.ts';
import { BACKOFFICE_SECURITY } from '../../domain/backoffice.ts';
import type { SessionClock } from '../accounts/sessions.ts';
import type { DataContext } from '../context.ts';
import { AppError, Conflict, NotFound } from '../errors.ts';
import {
  allowlistMatcher,
  coversWholeFamily,
  normalizeAddress,
  parseAllowlistEntry,
} from '../security/ip-allowlist.ts';
import { type BackofficeActor, recordBackofficeEvent } from './audit-log.ts';

type Admin = Extract<BackofficeActor, { kind: 'platform_admin' }>;
type Ctx = DataContext & SessionClock;

const entryView = (entry: PlatformAdminIpAllowlistEntry) => ({
  id: entry.id,
  entry: entry.entry,
  description: entry.description ?? null,
  createdAt: entry.createdAt.toISOString(),
});

/** The allowlist's entries, read in one statement (every backoffice request checks them). */
export async function backofficeAllowlist(em: Pick<EntityManager, 'execute'>): Promise<string[]> {
  const rows = await em.execute<{ entry: string }[]>('select entry from platform_admin_ip_allowlist');
  return rows.map((row) => row.entry);
}

/** Why a request from `address` is refused, or null: an empty list answers any address. */
export function backofficeAllowlistRefusal(entries: readonly string[], address: string): AppError | null {
  const normalized = normalizeAddress(address);
  if (allowlistMatcher(entries)(normalized)) return null;
  return new AppError(
    403,
    'forbidden',
    `Requests from ${normalized} may not reach the backoffice: the address is not on the backoffice IP allowlist.`,
  );
}

export async function securityPolicy(ctx: Ctx, ipAddress: string) {
  const [entries, domains, admins] = await Promise.all([
    ctx.em.find(PlatformAdminIpAllowlistEntry, {}, { orderBy: { createdAt: 'asc', id: 'asc' } }),
    ctx.em.find(PlatformAdminAllowedDomain, {}, { orderBy: { domain: 'asc' } }),
    ctx.em.find(PlatformAdmin, {}),
  ]);
  const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);
  return {
    ipAllowlist: entries.map(entryView),
    allowedDomains: domains.map((domain) => ({
      id: domain.id,
      domain: domain.domain,
      administrators: admins.filter((admin) => domainOf(admin.email) === domain.domain).length,
      createdAt: domain.createdAt.toISOString(),
    })),
    yourAddress: normalizeAddress(ipAddress),
    session: {
      idleTimeoutMinutes: BACKOFFICE_SECURITY.idleTimeoutMinutes,
      absoluteLifetimeHours: BACKOFFICE_SECURITY.absoluteLifetimeHours,
    },
    signInCode: {
      digits: BACKOFFICE_SECURITY.codeDigits,
      lifetimeMinutes: BACKOFFICE_SECURITY.codeLifetimeMinutes,
      maxAttempts: BACKOFFICE_SECURITY.codeMaxAttempts,
    },
  };
}

/**
 * The entry normalized, or a 400 naming `body.entry`: also for a prefix that covers a whole address family
 * (`127.0.0.1/0` is every IPv4 address), which would let anyone reach the backoffice while the list looks
 * closed. An empty list already admits every address, so nothing needs such an entry.
 */
function normalizedEntry(raw: string): string {
  const parsed = parseAllowlistEntry(raw);
  if ('error' in parsed) {
    throw new AppError(400, 'invalid_request', `entry: ${parsed.error}.`, [
      { field: 'body.entry', message: parsed.error },
    ]);
  }
  const whole = coversWholeFamily(parsed.entry);
  if (whole) {
    const problem = `"${raw.trim()}" covers every ${whole.family} address, so it would let any of them reach the backoffice`;
    throw new AppError(
      400,
      'invalid_request',
      `entry: ${problem}. Give the addresses or ranges that may reach it (one address: no prefix, or /${whole.family === 'IPv4' ? 32 : 128}); an empty list is what admits every address.`,
      [{ field: 'body.entry', message: problem }],
    );
  }
  return parsed.entry;
}

/**
 * Applies a change to the allowlist in a transaction that locks the list, refusing one that would leave the
 * administrator's own address outside a non-empty list.
 */
async function changeAllowlist<T>(
  ctx: Ctx,
  actor: Admin,
  change: (em: EntityManager) => Promise<{ result: T; entries: string[]; what: string }>,
): Promise<T> {
  return ctx.em.transactional(async (em) => {
    await em.execute('lock table platform_admin_ip_allowlist in share row exclusive mode');
    const { result, entries, what } = await change(em);
    const address = normalizeAddress(actor.ipAddress ?? '');
    if (entries.length > 0 && !allowlistMatcher(entries)(address)) {
      throw new Conflict(
        `${what} would lock you out: your address ${address} would not be on the backoffice IP allowlist. ` +
          'Add an entry that covers it first.',
        [{ field: 'body.entry', message: `would exclude your own address ${address}`, address }],
        'would_lock_out',
      );
    }
    await em.flush();
    return result;
  });
}

const allEntries = async (em: EntityManager) =>
  (await em.find(PlatformAdminIpAllowlistEntry, {})).map((entry) => entry.entry);

async function refuseDuplicateEntry(em: EntityManager, entry: string, except?: string) {
  const existing = await em.findOne(PlatformAdminIpAllowlistEntry, { entry });
  if (existing && existing.id !== except) {
    throw new Conflict(`${entry} is already on the backoffice IP allowlist.`, [
      { field: 'body.entry', message: 'already on the list' },
    ]);
  }
}

export async function addAllowlistEntry(
  ctx: Ctx,
  actor: Admin,
  input: { entry: string; description?: string | null | undefined },
) {
  const entry = normalizedEntry(input.entry);
  return changeAllowlist(ctx, actor, async (em) => {
    await refuseDuplicateEntry(em, entry);
    const created = em.create(PlatformAdminIpAllowlistEntry, {
      id: randomUUID(),
      entry,
      description: input.description || null,
      createdAt: new Date(),
    });
    recordBackofficeEvent({ ...ctx, em }, actor, {
      action: 'ip_allowlist.entry_added',
      targetId: created.id,
      details: { entry, description: created.description ?? null },
    });
    return {
      result: entryView(created),
      entries: [...(await allEntries(em)), entry],
      what: `Adding ${entry}`,
    };
  });
}

export async function updateAllowlistEntry(
  ctx: Ctx,
  actor: Admin,
  id: string,
  input: { entry: string; description?: string | null | undefined },
) {
  const entry = normalizedEntry(input.entry);
  return changeAllowlist(ctx, actor, async (em) => {
    const existing = await em.findOne(PlatformAdminIpAllowlistEntry, { id });
    if (!existing) throw new NotFound(`IP allowlist entry ${id} was not found.`);
    await refuseDuplicateEntry(em, entry, id);
    const before = { entry: existing.entry, description: existing.description ?? null };
    const entries = (await allEntries(em)).filter((other) => other !== existing.entry);
    existing.entry = entry;
    existing.description = input.description || null;
    recordBackofficeEvent({ ...ctx, em }, actor, {
      action: 'ip_allowlist.entry_changed',
      targetId: id,
      details: { before, after: { entry, description: existing.description ?? null } },
    });
    return {
      result: entryView(existing),
      entries: [...entries, entry],
      what: `Changing ${before.entry} to ${entry}`,
    };
  });
}

export async function removeAllowlistEntry(ctx: Ctx, actor: Admin, id: string) {
  return changeAllowlist(ctx, actor, async (em) => {
    const existing = await em.findOne(PlatformAdminIpAllowlistEntry, { id });
    if (!existing) throw new NotFound(`IP allowlist entry ${id} was not found.`);
    const entries = (await allEntries(em)).filter((other) => other !== existing.entry);
    recordBackofficeEvent({ ...ctx, em }, actor, {
      action: 'ip_allowlist.entry_removed',
      targetId: id,
      details: { entry: existing.entry, description: existing.description ?? null },
    });
    em.remove(existing);
    return { result: { ok: true as const }, entries, what: `Removing ${existing.entry}` };
  });
}

// ---- Allowed domains -----------------------------------------------------------------------------------------

const domainView = (domain: PlatformAdminAllowedDomain, administrators: number) => ({
  id: domain.id,
  domain: domain.domain,
  administrators,
  createdAt: domain.createdAt.toISOString(),
});

async function administratorsOf(em: EntityManager, domain: string): Promise<number> {
  const [row] = await em.execute<{ count: string }[]>(
    `select count(*) as count from platform_admin where split_part(email, '@', 2) = ?`,
    [domain],
  );
  return Number(row?.count ?? 0);
}

async function refuseDuplicateDomain(em: EntityManager, domain: string, except?: string) {
  const existing = await em.findOne(PlatformAdminAllowedDomain, { domain });
  if (existing && existing.id !== except) {
    throw new Conflict(`${domain} is already an allowed domain.`, [
      { field: 'body.domain', message: 'already allowed' },
    ]);
  }
}

function refuseInUse(domain: string, administrators: number, what: string) {
  if (administrators === 0) return;
  throw new Conflict(
    `${what} ${domain}: ${administrators} platform administrator${administrators === 1 ? ' has' : 's have'} an address there. Remove them first.`,
    [{ field: 'params.id', message: `${domain} is in use`, domain }],
    'domain_in_use',
  );
}

export async function addAllowedDomain(ctx: Ctx, actor: Admin, input: { domain: string }) {
  return ctx.em.transactional(async (em) => {
    await em.execute('lock table platform_admin_allowed_domain in share row exclusive mode');
    await refuseDuplicateDomain(em, input.domain);
    const created = em.create(PlatformAdminAllowedDomain, {
      id: randomUUID(),
      domain: input.domain,
      createdAt: new Date(),
    });
    recordBackofficeEvent({ ...ctx, em }, actor, {
      action: 'allowed_domain.created',
      targetId: created.id,
      details: { domain: created.domain },
    });
    await em.flush();
    return domainView(created, await administratorsOf(em, created.domain));
  });
}

export async function updateAllowedDomain(ctx: Ctx, actor: Admin, id: string, input: { domain: string }) {
  return ctx.em.transactional(async (em) => {
    await em.execute('lock table platform_admin_allowed_domain in share row exclusive mode');
    // Locked first, so an administrator being created at the domain is counted once committed.
    await em.execute('select id from platform_admin_allowed_domain where id = ? for update', [id]);
    const existing = await em.findOne(PlatformAdminAllowedDomain, { id });
    if (!existing) throw new NotFound(`Allowed domain ${id} was not found.`);
    if (existing.domain !== input.domain) {
      refuseInUse(existing.domain, await administratorsOf(em, existing.domain), 'Cannot change');
      await refuseDuplicateDomain(em, input.domain, id);
      recordBackofficeEvent({ ...ctx, em }, actor, {
        action: 'allowed_domain.changed',
        targetId: id,
        details: { before: existing.domain, after: input.domain },
      });
      existing.domain = input.domain;
      await em.flush();
    }
    return domainView(existing, await administratorsOf(em, existing.domain));
  });
}

export async function removeAllowedDomain(ctx: Ctx, actor: Admin, id: string) {
  return ctx.em.transactional(async (em) => {
    await em.execute('lock table platform_admin_allowed_domain in share row exclusive mode');
    // Locked first, so an administrator being created at the domain is counted once committed.
    await em.execute('select id from platform_admin_allowed_domain where id = ? for update', [id]);
    const existing = await em.findOne(PlatformAdminAllowedDomain, { id });
    if (!existing) throw new NotFound(`Allowed domain ${id} was not found.`);
    refuseInUse(existing.domain, await administratorsOf(em, existing.domain), 'Cannot remove');
    recordBackofficeEvent({ ...ctx, em }, actor, {
      action: 'allowed_domain.removed',
      targetId: id,
      details: { domain: existing.domain },
    });
    em.remove(existing);
    await em.flush();
    return { ok: true as const };
  });
}
