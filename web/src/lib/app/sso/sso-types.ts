// Single sign-on's shapes for the pages (docs/sso.md): the server's schemas (domain/sso.ts), types only.
import type { z } from 'zod';
import type * as sso from '../../../../../domain/sso.ts';

export type SsoSettings = z.output<typeof sso.SsoSettings>;
export type UpdateSsoSettingsRequest = z.input<typeof sso.UpdateSsoSettingsRequest>;
