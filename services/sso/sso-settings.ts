// GET, PUT and DELETE /api/organization/sso (docs/sso.md, "Settings"): an organization's OpenID provider. Saving
// checks everything before anything changes: the issuer's metadata is discovered with the given client, the
// client secret (required the first time, then write-only: absent keeps the stored one) is encrypted with the
// secrets key like MFA secrets, each allowed domain is claimed by this organization only (409 `sso_domain_taken`),
// the just-in-time role is one of the organization's, never Owner, and one the administrator may grant, and
// "SSO required" names an active owner as break-glass. `settings.updated` names the changed fields, never a value.
import { randomUUID } from 'node:crypto';
import { decryptSecret, encryptSecret } from '../../config/secrets-encryption.ts';
import { AppUser, OrganizationSso, Role, SsoDomain } from '../../db/entities/index.ts';
import type { SsoSettings, UpdateSsoSettingsRequest } from '../../domain/sso.ts';
import { secretsKeyOf } from '../accounts/mfa-totp.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { permissionsOf } from '../accounts/sessions.ts';
import {
  type Actor,
  checkMayGrant,
  isOwnerRole,
  lockOrganization,
} from '../administration/administration.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict, InvalidRequest, NotFound } from '../errors.ts';
import { discoverProvider, ssoRedirectUri } from './sso-provider.ts';

type SsoContext = Pick<ServiceContext, 'em' | 'config' | 'clock'>;

const refused = (field: string, message: string) =>
  new InvalidRequest(`Invalid request: body.${field}: ${message}`, [{ field: `body.${field}`, message }]);

async function viewOf(
  ctx: SsoContext,
  organizationId: string,
  sso: OrganizationSso | null,
): Promise<SsoSettings> {
  const roles = await ctx.em.find(Role, { organizationId }, { orderBy: { createdAt: 'asc', name: 'asc' } });
  const ownerRole = roles.find(isOwnerRole);
  const owners = ownerRole
    ? await ctx.em.find(
        AppUser,
        { organizationId, roleId: ownerRole.id, status: 'active' },
        { orderBy: { fullName: 'asc' } },
      )
    : [];
  return {
    roleChoices: roles
      .filter((role) => !isOwnerRole(role))
      .map((role) => ({ id: role.id, name: role.name, builtIn: role.builtIn ?? null })),
    ownerChoices: owners.map((owner) => ({ id: owner.id, fullName: owner.fullName, email: owner.email })),
    configured: sso !== null,
    issuer: sso?.issuer ?? '',
    clientId: sso?.clientId ?? '',
    clientSecretSet: Boolean(sso?.clientSecretEncrypted),
    allowedDomains: sso?.allowedDomains ?? [],
    jitEnabled: sso?.jitEnabled ?? false,
    jitRoleId: sso?.jitRoleId ?? null,
    ssoRequired: sso?.ssoRequired ?? false,
    breakGlassUserId: sso?.breakGlassUserId ?? null,
    redirectUri: ssoRedirectUri(ctx.config),
    updatedAt: sso?.updatedAt.toISOString() ?? null,
  };
}

export async function getSsoSettings(ctx: SsoContext, actor: Actor): Promise<SsoSettings> {
  const organizationId = actor.organization.id;
  return viewOf(ctx, organizationId, await ctx.em.findOne(OrganizationSso, { organizationId }));
}

/** The role just-in-time accounts get: the organization's, not Owner, and one the actor may grant. */
async function jitRoleOf(ctx: SsoContext, actor: Actor, roleId: string): Promise<Role> {
  const role = await ctx.em.findOne(Role, { id: roleId, organizationId: actor.organization.id });
  if (!role) throw refused('jitRoleId', 'no such role in this organization');
  if (isOwnerRole(role))
    throw refused('jitRoleId', 'just-in-time accounts cannot be owners: choose another role');
  checkMayGrant(actor, role, permissionsOf(role));
  return role;
}

/** The break-glass user: an active owner of the organization. */
async function breakGlassOf(ctx: SsoContext, actor: Actor, userId: string): Promise<AppUser> {
  const user = await ctx.em.findOne(AppUser, {
    id: userId,
    organizationId: actor.organization.id,
    status: 'active',
  });
  const role = user ? await ctx.em.findOne(Role, { id: user.roleId }) : null;
  if (!user || !role || !isOwnerRole(role)) {
    throw refused('breakGlassUserId', 'the break-glass user must be an active owner of this organization');
  }
  return user;
}

export async function updateSsoSettings(
  ctx: SsoContext,
  actor: Actor & { ipAddress?: string | null },
  input: UpdateSsoSettingsRequest,
): Promise<SsoSettings> {
  const organizationId = actor.organization.id;
  const stored = await ctx.em.findOne(OrganizationSso, { organizationId });
  if (input.jitEnabled && !input.jitRoleId)
    throw refused('jitRoleId', 'choose the role of just-in-time accounts');
  if (input.jitRoleId) await jitRoleOf(ctx, actor, input.jitRoleId);
  if (input.ssoRequired && !input.breakGlassUserId) {
    throw refused('breakGlassUserId', 'choose a break-glass owner who may still sign in with a password');
  }
  if (input.breakGlassUserId) await breakGlassOf(ctx, actor, input.breakGlassUserId);
  const domains = [...new Set(input.allowedDomains)];
  const taken = await ctx.em.find(SsoDomain, {
    domain: { $in: domains },
    organizationId: { $ne: organizationId },
  });
  if (taken.length > 0) {
    const names = taken.map((row) => row.domain).join(', ');
    throw new Conflict(
      `Another organization signs in with ${names}: a domain leads to one organization's provider.`,
      taken.map((row) => ({ field: 'body.allowedDomains', message: `${row.domain} is taken` })),
      'sso_domain_taken',
    );
  }
  const key = secretsKeyOf(ctx.config);
  let secret = input.clientSecret;
  if (secret === undefined) {
    if (!stored) throw refused('clientSecret', 'the client secret is required');
    secret = decryptSecret(key, stored.clientSecretEncrypted);
  }
  // The provider answers for this issuer and client before anything is stored.
  await discoverProvider(
    ctx.config,
    { issuer: input.issuer, clientId: input.clientId, clientSecret: secret },
    'settings',
  );

  return ctx.em.transactional(async (tx) => {
    await lockOrganization(tx, organizationId);
    const sso =
      (await tx.findOne(OrganizationSso, { organizationId }, { refresh: true })) ??
      tx.create(OrganizationSso, {
        id: randomUUID(),
        organizationId,
        issuer: input.issuer,
        clientId: input.clientId,
        clientSecretEncrypted: '',
        allowedDomains: [],
        jitEnabled: false,
        jitRoleId: null,
        ssoRequired: false,
        breakGlassUserId: null,
      });
    const changed: string[] = [];
    const set = <K extends keyof OrganizationSso>(
      field: K,
      value: OrganizationSso[K],
      name = String(field),
    ) => {
      if (JSON.stringify(sso[field]) !== JSON.stringify(value) || !stored) changed.push(name);
      sso[field] = value;
    };
    set('issuer', input.issuer);
    set('clientId', input.clientId);
    if (input.clientSecret !== undefined) {
      sso.clientSecretEncrypted = encryptSecret(key, input.clientSecret);
      changed.push('clientSecret');
    }
    set('allowedDomains', domains);
    set('jitEnabled', input.jitEnabled);
    set('jitRoleId', input.jitRoleId);
    set('ssoRequired', input.ssoRequired);
    set('breakGlassUserId', input.breakGlassUserId);
    await tx.nativeDelete(SsoDomain, { organizationId });
    for (const domain of domains) tx.create(SsoDomain, { domain, organizationId });
    if (changed.length > 0) {
      recordActorEvent({ ...ctx, em: tx }, actor, {
        type: 'settings.updated',
        details: { changed: changed.map((field) => `sso.${field}`) },
      });
    }
    try {
      await tx.flush();
    } catch (error) {
      // Another organization claimed one of the domains meanwhile.
      if ((error as { code?: string }).code === '23505') {
        throw new Conflict(
          'Another organization signs in with one of these domains.',
          [],
          'sso_domain_taken',
        );
      }
      throw error;
    }
    return viewOf({ ...ctx, em: tx }, organizationId, sso);
  });
}

/** Removes the provider: single sign-on ends, password sign-in applies to everyone again. */
export async function removeSsoSettings(
  ctx: SsoContext,
  actor: Actor & { ipAddress?: string | null },
): Promise<void> {
  const organizationId = actor.organization.id;
  await ctx.em.transactional(async (tx) => {
    const sso = await tx.findOne(OrganizationSso, { organizationId });
    if (!sso) throw new NotFound('Single sign-on is not set up for this organization.');
    await tx.nativeDelete(SsoDomain, { organizationId });
    tx.remove(sso);
    recordActorEvent({ ...ctx, em: tx }, actor, {
      type: 'settings.updated',
      details: { changed: ['sso.removed'] },
    });
    await tx.flush();
  });
}
