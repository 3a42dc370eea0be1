// The development capture, newest first, for GET /api/dev/notifications (served outside production only).
import type { FilterQuery } from '@mikro-orm/core';
import { DevNotification } from '../../db/entities/index.ts';
import type { CapturedNotificationKind } from '../../domain/vocabulary.ts';
import { capturedFields } from '../../notifications/dev-capture.ts';
import type { DataContext } from '../context.ts';

export const DEV_NOTIFICATIONS_DEFAULT_LIMIT = 50;
export const DEV_NOTIFICATIONS_MAX_LIMIT = 500;

export interface DevNotificationFilter {
  to?: string;
  envelopeId?: string;
  recipientId?: string;
  kind?: CapturedNotificationKind;
  limit?: number;
}

export async function listDevNotifications(ctx: DataContext, filter: DevNotificationFilter) {
  const where: FilterQuery<DevNotification> = {};
  if (filter.to !== undefined) where.to = filter.to;
  if (filter.envelopeId !== undefined) where.envelopeId = filter.envelopeId;
  if (filter.recipientId !== undefined) where.recipientId = filter.recipientId;
  if (filter.kind !== undefined) where.kind = filter.kind;
  const rows = await ctx.em.find(DevNotification, where, {
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    limit: Math.min(filter.limit ?? DEV_NOTIFICATIONS_DEFAULT_LIMIT, DEV_NOTIFICATIONS_MAX_LIMIT),
  });
  return rows.map((row) => ({
    id: row.id,
    ...capturedFields(row),
    createdAt: row.createdAt.toISOString(),
  }));
}
