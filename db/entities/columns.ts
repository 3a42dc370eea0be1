// The columns many tables share, declared once and spread into defineEntity's properties: the uuid key, the
// organization a row belongs to, the stamps of creation and change, and a browser session's lifetime (the
// business app's users and the backoffice's administrators alike).
import { p } from '@mikro-orm/core';

const now = () => new Date();

/** `id`: a uuid primary key. */
export const uuidKey = () => ({ id: p.uuid().primary() });

/** `id` and `organizationId`: a row of one organization (tenant). */
export const tenantKeys = () => ({ ...uuidKey(), organizationId: p.uuid() });

/** `createdAt`, stamped when the row is inserted. */
export const createdAtColumn = () => ({ createdAt: p.datetime().onCreate(now) });

/** `createdAt` and `updatedAt`, both stamped on insert; `updatedAt` again on every update. */
export const timestampColumns = () => ({
  ...createdAtColumn(),
  updatedAt: p.datetime().onCreate(now).onUpdate(now),
});

/** A signed-in browser session's life, from its creation to its end (docs/accounts.md, docs/backoffice.md). */
export const sessionLifetimeColumns = () => ({
  ...createdAtColumn(),
  lastSeenAt: p.datetime(),
  /** The absolute end, whatever the activity. */
  expiresAt: p.datetime(),
  endedAt: p.datetime().nullable(),
  endedReason: p.string().nullable(),
  ipAddress: p.string().nullable(),
  userAgent: p.string().nullable(),
});
