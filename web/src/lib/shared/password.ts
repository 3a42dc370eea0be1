// The password policy of NewPassword (domain/account.ts), for the password fields of both areas: typed as the
// server's own constants, so the types fail if the server's values change (the browser gets no zod).
import type * as account from '../../../../domain/account.ts';

export const PASSWORD_MIN_LENGTH: typeof account.PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH: typeof account.PASSWORD_MAX_LENGTH = 200;
