// Every side effect the workflows need, built from explicit dependencies so tests can pass real ones.
import type { Orm } from '../db/orm.ts';
import { createFinalizeActivities } from './finalize.ts';
import { createProjectionActivities } from './projection.ts';

export interface ActivityDependencies {
  orm: Orm;
}

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createProjectionActivities(deps),
    ...createFinalizeActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
