// The backoffice IP allowlist is one list for the whole platform, and the test files share one database while
// two of them run at once. A file that changes the list (or expects what a change of its own is refused for,
// such as a lock-out) does it inside `withBackofficeAllowlist`: a PostgreSQL advisory lock held for the whole
// section, so no other file's entries come or go meanwhile. Each section removes what it added before it ends,
// so every section starts from the list the others left: empty.
//
// The lock is held by a connection of its own, outside MikroORM: a transaction of the ORM would become the
// section's context (its AsyncLocalStorage), and the services called inside would join it and wait on locks of
// their own transaction.
import pg from 'pg';
import { inject } from 'vitest';

/** The advisory lock's key: a constant the project uses for nothing else. */
const ALLOWLIST_LOCK = 726_150_017;

export async function withBackofficeAllowlist<T>(section: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  try {
    // Waits while another file's section runs.
    await client.query('select pg_advisory_lock($1)', [ALLOWLIST_LOCK]);
    return await section();
  } finally {
    // Closing the connection releases the lock, whatever happened in the section.
    await client.end();
  }
}
