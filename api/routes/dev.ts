// Development-only routes, registered by buildApp outside production (there they do not exist: 404).
// GET /api/dev/notifications lists what development and test captured instead of sending (invitations with
// their signing links, one-time codes), newest first, for every organization. No authentication, so it is
// served only to this machine: a client whose address (after trusted proxies) is not loopback gets 403. The
// server itself listens on loopback by default outside production (HOST).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { safeText } from '../../domain/common.ts';
import { CAPTURED_NOTIFICATION_KINDS } from '../../domain/vocabulary.ts';
import { Forbidden } from '../../services/errors.ts';
import {
  DEV_NOTIFICATIONS_DEFAULT_LIMIT,
  DEV_NOTIFICATIONS_MAX_LIMIT,
  listDevNotifications,
} from '../../services/notifications/list-dev-notifications.ts';
import type { AppDependencies } from '../dependencies.ts';

const NotificationsQuery = z.object({
  to: safeText().trim().min(1).max(320).optional(),
  envelopeId: z.uuid().optional(),
  recipientId: z.uuid().optional(),
  kind: z.enum(CAPTURED_NOTIFICATION_KINDS).optional(),
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
  app.addHook('onRequest', async (request) => {
    if (!isLoopback(request.ip)) {
      throw new Forbidden(
        'The development notifications are served to this machine only (a loopback address); open the panel on the machine running Sigil.',
      );
    }
  });
  app.get(
    '/api/dev/notifications',
    { schema: { hide: true, querystring: NotificationsQuery } },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return { notifications: await listDevNotifications(request.services, request.query) };
    },
  );
};

/** 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
export function isLoopback(address: string): boolean {
  const ip = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return ip === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ip);
}
