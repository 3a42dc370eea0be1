// The retention run's database work (workflows/retention.ts; the SQL is db/retention.ts and, for deleted
// organizations, db/organization-purge.ts): one page of envelopes (or organizations) per call, an envelope per transaction. The call heartbeats its progress — the last envelope it finished and
// its counts — every second and after every envelope; a retry after a dead worker or a lost connection reads
// that progress and continues after it, so nothing is done twice and nothing finished is looked at again.
import { Context } from '@temporalio/activity';
import { organizationsDueForPurge, purgeOrganization } from '../db/organization-purge.ts';
import type { Orm } from '../db/orm.ts';
import {
  deleteByRetention,
  envelopesDueForPurge,
  envelopesPastRetention,
  purgeEnvelopeFiles,
  type RetentionPage,
} from '../db/retention.ts';
import type { RetentionPageRequest } from '../workflows/retention-contracts.ts';

/** How often a page in progress tells Temporal it is alive (the workflow's heartbeat timeout is 30 s). */
const HEARTBEAT_EVERY_MS = 1000;

interface Progress {
  /** The last envelope finished (changed, or found no longer due). */
  after: string | null;
  /** Envelopes of this page finished so far. */
  seen: number;
  changed: number;
  files: number;
}

export function createRetentionActivities(deps: { orm: Orm }) {
  return {
    /** Deletes the envelopes past their organization's retention for finished documents (one page). */
    deleteEnvelopesPastRetention(request: RetentionPageRequest): Promise<RetentionPage> {
      return page(request, envelopesPastRetention, async (id, asOf, progress) => {
        if (await deleteByRetention(deps.orm.em, id, asOf)) progress.changed += 1;
      });
    },

    /** Purges the files of envelopes deleted longer ago than their organization's retention (one page). */
    purgeDeletedEnvelopeFiles(request: RetentionPageRequest): Promise<RetentionPage> {
      return page(request, envelopesDueForPurge, async (id, asOf, progress) => {
        const purged = await purgeEnvelopeFiles(deps.orm.em, id, asOf);
        if (!purged) return;
        progress.changed += 1;
        progress.files += purged.files;
      });
    },

    /**
     * Deletes the data of organizations a platform administrator deleted ORGANIZATION_PURGE_DAYS ago or more
     * (one page; db/organization-purge.ts).
     */
    purgeDeletedOrganizations(request: RetentionPageRequest): Promise<RetentionPage> {
      return page(request, organizationsDueForPurge, async (id, asOf, progress) => {
        const purged = await purgeOrganization(deps.orm.em, id, asOf);
        if (!purged) return;
        progress.changed += 1;
        progress.files += purged.files;
      });
    },
  };

  async function page(
    request: RetentionPageRequest,
    list: typeof envelopesPastRetention,
    handle: (envelopeId: string, asOf: Date, progress: Progress) => Promise<void>,
  ): Promise<RetentionPage> {
    const context = activityContext();
    const asOf = new Date(request.asOf);
    // A retry of this page starts after the last envelope an earlier attempt finished, with its counts.
    const progress: Progress = (context?.info.heartbeatDetails as Progress | undefined) ?? {
      after: request.after,
      seen: 0,
      changed: 0,
      files: 0,
    };
    const heartbeat = () => context?.heartbeat({ ...progress });
    const timer = context ? setInterval(heartbeat, HEARTBEAT_EVERY_MS) : undefined;
    try {
      const remaining = request.limit - progress.seen;
      const ids = remaining > 0 ? await list(deps.orm.em.fork(), asOf, progress.after, remaining) : [];
      for (const id of ids) {
        await handle(id, asOf, progress);
        progress.after = id;
        progress.seen += 1;
        heartbeat();
      }
      // A full page may have more behind it; a short one is the end of the phase.
      const next = progress.seen >= request.limit ? progress.after : null;
      return { changed: progress.changed, files: progress.files, next };
    } finally {
      clearInterval(timer);
    }
  }
}

/** The running activity's context; none when a test calls the function directly. */
function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
