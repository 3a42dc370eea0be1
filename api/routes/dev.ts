// Development-only routes, registered by buildApp outside production (there they do not exist: 404).
// GET /api/dev/notifications lists what development and test captured instead of sending (one-time codes
// today), newest first. No authentication: it must never be served in production.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { NOTIFICATION_KINDS } from '../../domain/vocabulary.ts';
import type { AppDependencies } from '../dependencies.ts';
import {
  DEV_NOTIFICATIONS_DEFAULT_LIMIT,
  DEV_NOTIFICATIONS_MAX_LIMIT,
  listDevNotifications,
} from '../services/notifications/list-dev-notifications.ts';

const NotificationsQuery = z.object({
  to: z.string().trim().min(1).max(320).optional(),
  envelopeId: z.uuid().optional(),
  recipientId: z.uuid().optional(),
  kind: z.enum(NOTIFICATION_KINDS).optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(DEV_NOTIFICATIONS_MAX_LIMIT)
    .default(DEV_NOTIFICATIONS_DEFAULT_LIMIT),
});

export const devRoutes: FastifyPluginAsync<AppDependencies> = async (base, deps) => {
  if (deps.config.env === 'production') {
    throw new Error('the development routes must not be registered in production');
  }
  const app = base.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/dev/notifications',
    { schema: { hide: true, querystring: NotificationsQuery } },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return { notifications: await listDevNotifications(request.services, request.query) };
    },
  );
};
