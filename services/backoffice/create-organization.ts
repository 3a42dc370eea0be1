// POST /api/backoffice/organizations (docs/backoffice.md, "New organization"): platform staff onboard an
// organization — the sign-up's organization use case (name, plan, API access, default language, its built-in
// roles) with its supported languages, and its first owner invited as the administration invites (an `invited`
// user with the owner role and a 7-day link to /app/accept-invite; an address that belongs to a user of another
// organization is invited all the same and its holder told, invite-user.ts). One transaction with the
// `user.invited` security event (no organization user acted; the staff member named in its details) and the
// backoffice audit event `organization.created`; the email goes out after the commit.
import { randomUUID } from 'node:crypto';
import { AppUser, Role } from '../../db/entities/index.ts';
import { BackofficeCreateOrganizationRequest } from '../../domain/backoffice-users.ts';
import type { AccountEmail } from '../accounts/account-emails.ts';
import { issueAccountToken } from '../accounts/account-tokens.ts';
import { findUserByEmail } from '../accounts/account-users.ts';
import { recordSecurityEvent } from '../accounts/security-log.ts';
import { nowOf } from '../accounts/sessions.ts';
import { lockOrganization } from '../administration/administration.ts';
import {
  type AdministrationContext,
  invitationEmail,
  invitationLanguage,
} from '../administration/invite-user.ts';
import { createOrganization } from '../organizations/create-organization.ts';
import { parseInput } from '../validation.ts';
import { type BackofficeActor, recordBackofficeEvent } from './audit-log.ts';

/** Who an onboarding invitation says invited the owner: the platform, not one of its staff by name. */
const INVITED_BY = 'Sigil';

export interface OnboardedOrganization {
  organizationId: string;
  ownerId: string;
  ownerEmail: string;
  /** The invitation (or the notice to the address's holder elsewhere), to send after the commit. */
  email: AccountEmail | null;
}

export async function onboardOrganization(
  ctx: AdministrationContext,
  actor: Extract<BackofficeActor, { kind: 'platform_admin' }>,
  input: unknown,
): Promise<OnboardedOrganization> {
  const data = parseInput(BackofficeCreateOrganizationRequest, input, 'organization');
  const now = nowOf(ctx);
  const made = await ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
    const organization = await createOrganization(txCtx, {
      name: data.name,
      plan: data.plan,
      apiEnabled: data.apiEnabled,
      defaultLanguage: data.defaultLanguage,
    });
    await lockOrganization(tx, organization.id);
    if (data.supportedLanguages) organization.supportedLanguages = data.supportedLanguages;
    const role = await tx.findOneOrFail(Role, { organizationId: organization.id, builtIn: 'owner' });
    const holder = await findUserByEmail(txCtx, data.owner.email);
    const owner = tx.create(AppUser, {
      id: randomUUID(),
      organizationId: organization.id,
      email: data.owner.email,
      fullName: data.owner.fullName,
      passwordHash: null,
      status: 'invited',
      emailVerifiedAt: null,
      roleId: role.id,
      teamId: null,
      language: invitationLanguage(organization.defaultLanguage),
      totpSecretEncrypted: null,
      totpPendingSecretEncrypted: null,
      totpEnabledAt: null,
      invitedAt: now,
      invitedBy: null,
      emailHeldElsewhere: holder !== null,
      lastLoginAt: null,
      deletedAt: null,
      createdAt: now,
    });
    await tx.flush();
    const token = holder ? null : await issueAccountToken(txCtx, owner.id, 'invite');
    recordSecurityEvent(txCtx, {
      organizationId: organization.id,
      type: 'user.invited',
      actorUserId: null,
      subjectUserId: owner.id,
      subjectEmail: owner.email,
      ipAddress: actor.ipAddress,
      details: { role: role.name, team: null, byPlatformStaff: actor.admin.email },
    });
    recordBackofficeEvent(txCtx, actor, {
      action: 'organization.created',
      targetId: organization.id,
      details: {
        name: organization.name,
        plan: organization.planName,
        apiEnabled: organization.apiEnabled,
        defaultLanguage: organization.defaultLanguage,
        supportedLanguages: organization.supportedLanguages,
        owner: owner.email,
      },
    });
    await tx.flush();
    return { organization, owner, token, holder };
  });
  const email = await invitationEmail(
    ctx,
    { user: made.owner, token: made.token, holder: made.holder },
    made.organization,
    INVITED_BY,
  );
  return {
    organizationId: made.organization.id,
    ownerId: made.owner.id,
    ownerEmail: made.owner.email,
    email,
  };
}
