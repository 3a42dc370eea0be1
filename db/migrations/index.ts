// The ordered list of schema migrations. Append new ones; never edit one that has shipped.
import type { MigrationObject } from '@mikro-orm/core';
import { Migration0001Initial } from './0001-initial.ts';
import { Migration0002PublicApi } from './0002-public-api.ts';
import { Migration0003Sandbox } from './0003-sandbox.ts';
import { Migration0004EnvelopeSettings } from './0004-envelope-settings.ts';
import { Migration0005Signing } from './0005-signing.ts';
import { Migration0006Otp } from './0006-otp.ts';
import { Migration0007Webhooks } from './0007-webhooks.ts';
import { Migration0008Notifications } from './0008-notifications.ts';
import { Migration0009ProjectionErrors } from './0009-projection-errors.ts';
import { Migration0010TokenSecret } from './0010-token-secret.ts';
import { Migration0011Idempotency } from './0011-idempotency.ts';
import { Migration0012Accounts } from './0012-accounts.ts';
import { Migration0013Mfa } from './0013-mfa.ts';
import { Migration0014Passkeys } from './0014-passkeys.ts';
import { Migration0015Contacts } from './0015-contacts.ts';
import { Migration0016Stamps } from './0016-stamps.ts';
import { Migration0017EnvelopesFromFile } from './0017-envelopes-from-file.ts';
import { Migration0018Documents } from './0018-documents.ts';
import { Migration0019Retention } from './0019-retention.ts';
import { Migration0020TemplateVersions } from './0020-template-versions.ts';
import { Migration0021BulkSends } from './0021-bulk-sends.ts';

export const migrations: MigrationObject[] = [
  { name: '0001-initial', class: Migration0001Initial },
  { name: '0002-public-api', class: Migration0002PublicApi },
  { name: '0003-sandbox', class: Migration0003Sandbox },
  { name: '0004-envelope-settings', class: Migration0004EnvelopeSettings },
  { name: '0005-signing', class: Migration0005Signing },
  { name: '0006-otp', class: Migration0006Otp },
  { name: '0007-webhooks', class: Migration0007Webhooks },
  { name: '0008-notifications', class: Migration0008Notifications },
  { name: '0009-projection-errors', class: Migration0009ProjectionErrors },
  { name: '0010-token-secret', class: Migration0010TokenSecret },
  { name: '0011-idempotency', class: Migration0011Idempotency },
  { name: '0012-accounts', class: Migration0012Accounts },
  { name: '0013-mfa', class: Migration0013Mfa },
  { name: '0014-passkeys', class: Migration0014Passkeys },
  { name: '0015-contacts', class: Migration0015Contacts },
  { name: '0016-stamps', class: Migration0016Stamps },
  { name: '0017-envelopes-from-file', class: Migration0017EnvelopesFromFile },
  { name: '0018-documents', class: Migration0018Documents },
  { name: '0019-retention', class: Migration0019Retention },
  { name: '0020-template-versions', class: Migration0020TemplateVersions },
  { name: '0021-bulk-sends', class: Migration0021BulkSends },
];
