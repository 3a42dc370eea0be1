// The hottest reads as named prepared statements (issue 19). MikroORM's `execute` writes the parameters into
// the SQL text, so PostgreSQL parses and plans every call afresh; for the bearer check and the envelope view
// that planning cost more than running them. A named statement is parsed once per pooled connection and, after
// a few runs, planned once too (PostgreSQL's generic plan), so each call only binds and executes.
//
// The statement still passes through MikroORM's connection: it is logged like any other (the query log, the
// slow-query log and the tests that count statements see it), and it runs on the same pool. Inside a
// transaction it runs through the transaction's connection as an ordinary statement, so it sees what the
// transaction wrote.
import type { EntityManager } from '@mikro-orm/postgresql';

export interface PreparedStatement {
  /** PostgreSQL's name for it: unique in the process, the same for the same text. */
  readonly name: string;
  /** The text with `$1`, `$2`… for pg. */
  readonly text: string;
  /** The text with `?` for MikroORM (inside a transaction, and in the query log). */
  readonly ormText: string;
}

const named = new Map<string, string>();

/** SQLSTATE of "cached plan must not change result type" (feature_not_supported). */
const CACHED_PLAN_CHANGED = '0A000';

/**
 * A statement to run with `runPrepared`. `sql` takes its parameters as `?`, in order, as MikroORM's `execute`
 * does; it must hold no other question mark.
 */
export function prepared(name: string, sql: string): PreparedStatement {
  const known = named.get(name);
  if (known !== undefined && known !== sql) throw new Error(`Prepared statement ${name} is defined twice`);
  named.set(name, sql);
  let index = 0;
  const text = sql.replace(/\?/g, () => `$${++index}`);
  return { name: `sigil_${name}`, text, ormText: sql };
}

/** Runs a prepared statement and answers its rows. */
export async function runPrepared<Row>(
  em: EntityManager,
  statement: PreparedStatement,
  values: readonly unknown[],
): Promise<Row[]> {
  if (em.isInTransaction()) return em.execute<Row[]>(statement.ormText, [...values]);
  const connection = em.getConnection();
  const pool = await connection.getNativeClient();
  const logged = em.config.get('debug')
    ? connection.getPlatform().formatQuery(statement.ormText, [...values])
    : statement.ormText;
  // `executeQuery` is the connection's own wrapper that times and logs a statement (protected in its types).
  const logging = connection as unknown as {
    executeQuery<T>(query: string, run: () => Promise<T>): Promise<T>;
  };
  try {
    return await logging.executeQuery(logged, async () => {
      // Checked out and given back as MikroORM's own statements are: a statement's error does not cost the
      // connection (pg's `pool.query` would drop it); a broken connection is dropped by the pool all the same.
      const client = await pool.connect();
      try {
        const result = await client.query({
          name: statement.name,
          text: statement.text,
          values: [...values],
        });
        return result.rows as Row[];
      } finally {
        client.release();
      }
    });
  } catch (error) {
    // A migration that changed the type of a column the statement returns (while this process kept running,
    // as in a rolling deploy) leaves the connection's prepared form unusable: PostgreSQL refuses it with
    // 0A000. The statement then runs as ordinary text, which PostgreSQL plans afresh.
    if ((error as { code?: unknown }).code === CACHED_PLAN_CHANGED) {
      return em.execute<Row[]>(statement.ormText, [...values]);
    }
    // The same error classes as `em.execute` throws (the driver's exceptions, the pg error as their cause).
    throw error instanceof Error ? em.getDriver().convertException(error) : error;
  }
}
