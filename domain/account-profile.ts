// The signed-in user's own account on the profile (docs/accounts.md, "Your account"): their name and phone,
// a new password, and a new email address confirmed by a link sent to it. Built from the account's and the
// contacts' building blocks, so a name, a password, an address and a phone follow the same rules everywhere.
import { z } from 'zod';
import { EmailAddress, FullName, GivenPassword, LinkToken, NewPassword } from './account.ts';
import { ContactPhone } from './contact.ts';

/** PUT /api/auth/me/profile: the name, and the phone in E.164 form (spaces and dashes removed) or null. */
export const UpdateProfileRequest = z.strictObject({
  fullName: FullName,
  phone: ContactPhone.nullable(),
});
export type UpdateProfileRequest = z.input<typeof UpdateProfileRequest>;

/** POST /api/auth/me/password: the current password (checked against the hash) and the new one (the policy). */
export const ChangePasswordRequest = z.strictObject({
  currentPassword: GivenPassword,
  newPassword: NewPassword,
});
export type ChangePasswordRequest = z.input<typeof ChangePasswordRequest>;

/** POST /api/auth/me/email: the current password and the new address (lower-cased), to be confirmed by link. */
export const RequestEmailChangeRequest = z.strictObject({
  currentPassword: GivenPassword,
  newEmail: EmailAddress,
});
export type RequestEmailChangeRequest = z.input<typeof RequestEmailChangeRequest>;

/** POST /api/auth/confirm-email-change: the token of the link sent to the new address. */
export const ConfirmEmailChangeRequest = z.strictObject({ token: LinkToken });

/** What a confirmed change answers: the address the account has now. */
export const ConfirmedEmailChange = z.object({ email: z.string() });
