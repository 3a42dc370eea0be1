// The shape of a /api/v1 route module: a Fastify plugin on the zod type provider that receives the app's
// dependencies.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDependencies } from '../../dependencies.ts';

export type V1Routes = FastifyPluginAsyncZod<AppDependencies>;
