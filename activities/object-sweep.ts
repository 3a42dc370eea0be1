// The orphan sweep's work (workflows/object-sweep.ts; services/storage/sweep-orphan-objects.ts): one page per call.
// The call heartbeats its progress — the last key it finished and its counts — every second; a retry after a
// dead worker reads that progress and continues after it.
import { Context } from '@temporalio/activity';
import type { Orm } from '../db/orm.ts';
import type { ObjectStores } from '../services/storage/object-stores.ts';
import {
  type SweepPage,
  sweepStrayObjects,
  sweepUnreferencedObjects,
} from '../services/storage/sweep-orphan-objects.ts';
import type { ObjectSweepPage, ObjectSweepPageRequest } from '../workflows/object-sweep-contracts.ts';

const HEARTBEAT_EVERY_MS = 1000;

export function createObjectSweepActivities(deps: { orm: Orm; stores: ObjectStores }) {
  return {
    async sweepObjectsPage(request: ObjectSweepPageRequest): Promise<ObjectSweepPage> {
      const context = activityContext();
      const earlier = context?.info.heartbeatDetails as SweepPage | undefined;
      // A retry continues after the last key an earlier attempt finished, with its counts.
      const done: SweepPage = earlier ?? { checked: 0, deleted: 0, bytesFreed: 0, next: request.after };
      let progress = { ...done };
      const timer = context ? setInterval(() => context.heartbeat(progress), HEARTBEAT_EVERY_MS) : undefined;
      try {
        const ctx = {
          em: deps.orm.em,
          stores: deps.stores,
          onObject: (page: SweepPage) => {
            progress = {
              checked: done.checked + page.checked,
              deleted: done.deleted + page.deleted,
              bytesFreed: done.bytesFreed + page.bytesFreed,
              next: page.next,
            };
          },
        };
        const page = {
          before: new Date(request.before),
          after: done.next,
          limit: Math.max(1, request.limit - done.checked),
        };
        const result =
          request.phase === 'registry'
            ? await sweepUnreferencedObjects(ctx, page)
            : await sweepStrayObjects(ctx, request.phase, page);
        return {
          checked: done.checked + result.checked,
          deleted: done.deleted + result.deleted,
          bytesFreed: done.bytesFreed + result.bytesFreed,
          next: result.next,
        };
      } finally {
        clearInterval(timer);
      }
    },
  };
}

/** The running activity's context; none when a test calls the function directly. */
function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
