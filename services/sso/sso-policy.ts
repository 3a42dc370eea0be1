// "SSO required" (docs/sso.md): while an organization requires single sign-on, its users' password sign-in and
// password reset are refused, but for the break-glass owner its settings name.
import { OrganizationSso } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { AppError } from '../errors.ts';

/** Whether the user must sign in through the organization's identity provider rather than with a password. */
export async function passwordRefusedBySso(
  ctx: DataContext,
  user: { id: string; organizationId: string },
): Promise<boolean> {
  const sso = await ctx.em.findOne(OrganizationSso, { organizationId: user.organizationId });
  return Boolean(sso?.ssoRequired) && sso?.breakGlassUserId !== user.id;
}

/** 403 `sso_required`. */
export const ssoRequired = () =>
  new AppError(
    403,
    'sso_required',
    'Your organization signs in with single sign-on: choose “Sign in with SSO” and use your work account.',
  );
