// db/prepared.ts: the hottest reads run as named prepared statements. They answer what the same SQL answers
// through MikroORM, PostgreSQL keeps them prepared on the connection, they are logged like any statement, a
// transaction's statement sees the transaction's writes, and a failure arrives as the driver's exception.
import { DriverException } from '@mikro-orm/core';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createOrm, type Orm } from '../../db/orm.ts';
import { prepared, runPrepared } from '../../db/prepared.ts';

let orm: Orm;
const logged: string[] = [];

beforeAll(async () => {
  // One connection, so the session that prepared the statement is the one asked about it.
  orm = await createOrm({
    databaseUrl: inject('databaseUrl'),
    poolMax: 1,
    onQuery: (sql) => logged.push(sql),
  });
});
afterAll(async () => {
  await orm.close();
});

const PLUS = prepared('test_plus', 'select ?::int + ?::int as sum, ?::text as label');

it('answers what the same SQL answers through the ORM, and stays prepared on the connection', async () => {
  const em = orm.em.fork();
  const direct = await em.execute<{ sum: number; label: string }[]>(PLUS.ormText, [2, 3, 'five']);
  logged.length = 0;
  for (let run = 0; run < 8; run += 1) {
    const rows = await runPrepared<{ sum: number; label: string }>(em, PLUS, [run, 3, `run ${run}`]);
    expect(rows).toEqual([{ sum: run + 3, label: `run ${run}` }]);
  }
  expect(await runPrepared(em, PLUS, [2, 3, 'five'])).toEqual(direct);
  // Logged as any statement is, with its values written in when the query log is on.
  expect(logged.filter((line) => line.includes("select 7::int + 3::int as sum, 'run 7'::text"))).toHaveLength(
    1,
  );
  const pool = await em.getConnection().getNativeClient();
  const names = await pool.query<{ name: string; statement: string }>(
    'select name, statement from pg_prepared_statements',
  );
  expect(names.rows.map((row) => row.name)).toContain('sigil_test_plus');
  expect(names.rows.find((row) => row.name === 'sigil_test_plus')?.statement).toContain('$1::int + $2::int');
});

it('inside a transaction, runs on the transaction and sees its writes', async () => {
  const table = `prepared_check_${process.pid}`;
  const em = orm.em.fork();
  await em.execute(`create temporary table if not exists ${table} (id int primary key)`);
  const COUNT = prepared(`test_count_${process.pid}`, `select count(*)::int as n from ${table} where id > ?`);
  await em.transactional(async (tx) => {
    await tx.execute(`insert into ${table} (id) values (1), (2), (3)`);
    expect(await runPrepared(tx, COUNT, [1])).toEqual([{ n: 2 }]);
    await tx.execute(`delete from ${table}`);
  });
  expect(await runPrepared(em, COUNT, [0])).toEqual([{ n: 0 }]);
});

it('still answers after a migration changed the type of a column it returns', async () => {
  const table = `prepared_type_${process.pid}`;
  const em = orm.em.fork();
  await em.execute(`create temporary table if not exists ${table} (id int primary key, amount int)`);
  await em.execute(`insert into ${table} (id, amount) values (1, 42) on conflict do nothing`);
  const AMOUNT = prepared(`test_amount_${process.pid}`, `select amount from ${table} where id = ?`);
  for (let run = 0; run < 6; run += 1) expect(await runPrepared(em, AMOUNT, [1])).toEqual([{ amount: 42 }]);
  await em.execute(`alter table ${table} alter column amount type text`);
  // PostgreSQL refuses the prepared form (0A000); the statement runs as text instead, now and later.
  expect(await runPrepared(em, AMOUNT, [1])).toEqual([{ amount: '42' }]);
  expect(await runPrepared(em, AMOUNT, [1])).toEqual([{ amount: '42' }]);
});

it('a failure arrives as the driver exception, with PostgreSQL error as its cause', async () => {
  const BROKEN = prepared('test_broken', 'select * from table_that_does_not_exist where id = ?');
  const failure = await runPrepared(orm.em.fork(), BROKEN, [1]).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(DriverException);
  expect(String((failure as Error).message)).toMatch(/table_that_does_not_exist/);
  // The connection stays usable.
  expect(await runPrepared(orm.em.fork(), PLUS, [1, 1, 'two'])).toEqual([{ sum: 2, label: 'two' }]);
});

it('refuses one name for two texts', () => {
  expect(() => prepared('test_plus', 'select 1')).toThrow(/defined twice/);
  expect(prepared('test_plus', 'select ?::int + ?::int as sum, ?::text as label').name).toBe(
    'sigil_test_plus',
  );
});
