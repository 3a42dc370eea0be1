// What the bulk send pages (/app/send/bulk and /app/send/bulk/<id>) share: the badge tone of a run's status
// and of a row's (app.css, .app-badge).
import type { BulkSendRowStatus, BulkSendStatus } from '../../../../domain/vocabulary.ts';

export const RUN_STATUS_TONES: Record<BulkSendStatus, string> = {
  Running: 'info',
  Completed: 'good',
  Cancelled: 'off',
};

export const ROW_STATUS_TONES: Record<BulkSendRowStatus, string> = {
  Pending: 'off',
  Created: 'info',
  Sent: 'good',
  Failed: 'warn',
  Skipped: 'off',
};
