// A bulk send's activities (workflows/bulk-send.ts; the work is services/bulk-sends/send-bulk-rows.ts): one
// page of rows per call, each row with its own unit of work and the worker's Temporal client, a heartbeat after
// every row; and the run's end. The rows' statuses in PostgreSQL are the progress, so a retry after a dead
// worker simply takes the rows not yet done.
import { Context } from '@temporalio/activity';
import { loadConfig } from '../config/config.ts';
import { finishBulkSendRun } from '../db/bulk-sends.ts';
import type { Orm } from '../db/orm.ts';
import { sendBulkRows } from '../services/bulk-sends/send-bulk-rows.ts';
import type { ServiceConfig } from '../services/context.ts';
import type { FileObjects } from '../storage/file-objects.ts';
import type {
  BulkSendPage,
  BulkSendPageRequest,
  FinishBulkSendRequest,
} from '../workflows/bulk-send-contracts.ts';

export function createBulkSendActivities(deps: {
  orm: Orm;
  config?: ServiceConfig | undefined;
  files: FileObjects;
}) {
  let config = deps.config;
  return {
    sendBulkSendRows(request: BulkSendPageRequest): Promise<BulkSendPage> {
      const context = Context.current();
      config ??= loadConfig();
      const serviceConfig = config;
      return sendBulkRows(
        () => ({
          em: deps.orm.em.fork(),
          temporal: context.client,
          config: serviceConfig,
          files: deps.files,
        }),
        request,
        () => context.heartbeat(),
      );
    },

    finishBulkSend(request: FinishBulkSendRequest): Promise<{ skipped: number }> {
      return finishBulkSendRun(deps.orm.em.fork(), request.bulkSendId, request.cancelled);
    },
  };
}
