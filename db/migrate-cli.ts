// `npm run migrate`: applies pending migrations to the database of DATABASE_URL (or the embedded one while
// `npm start` runs it) and prints what it did; `--list` prints applied and pending migrations and changes
// nothing. The API applies pending migrations at start too (under the same advisory lock), so this is for
// operators who migrate before rolling out, and for checking a database.
import { loadConfig } from '../config/config.ts';
import { redactUrl } from '../config/logger.ts';
import { createOrm, migrateToLatest } from './orm.ts';

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== '--list');
if (unknown.length > 0) {
  process.stderr.write(`Unknown argument ${unknown[0]}.\nUsage: npm run migrate [-- --list]\n`);
  process.exit(64);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
const where = redactUrl(config.database.url);
let orm: Awaited<ReturnType<typeof createOrm>> | undefined;
try {
  orm = await createOrm({ databaseUrl: config.database.url, poolMax: 2 });
  if (args.includes('--list')) {
    const applied = await orm.migrator.getExecuted();
    const pending = await orm.migrator.getPending();
    process.stdout.write(`database ${where}\n`);
    for (const migration of applied) process.stdout.write(`  applied  ${migration.name}\n`);
    for (const migration of pending) process.stdout.write(`  pending  ${migration.name}\n`);
    if (pending.length === 0) process.stdout.write('the schema is up to date\n');
  } else {
    const names = await migrateToLatest(orm, config.database.url);
    process.stdout.write(
      names.length > 0
        ? `applied ${names.length} migration(s) to ${where}: ${names.join(', ')}\n`
        : `the schema of ${where} is up to date\n`,
    );
  }
} catch (error) {
  const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
  process.stderr.write(
    `Could not migrate ${where}: ${reason}\nIs PostgreSQL running (npm start), or DATABASE_URL set to a reachable server?\n`,
  );
  process.exitCode = 1;
} finally {
  await orm?.close();
}
