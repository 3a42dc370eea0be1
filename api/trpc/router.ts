// Every application route, one sub-router per area. `AppRouter` is what the web app's client is typed by
// (an `import type`, so no server code reaches the browser).
import { router } from './init.ts';
import { plansRouter } from './procedures/plans.ts';

export const appRouter = router({
  plans: plansRouter,
});

export type AppRouter = typeof appRouter;
