import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createTestDatabase, dropTestDatabase } from './test-postgres';

const ROOT = join(__dirname, '../../..');

/**
 * Names the database the e2e global setup migrated once for the whole run. Set in the Jest parent's environment,
 * which the workers it starts afterwards inherit.
 */
const TEMPLATE_VARIABLE = 'MAILROOM_TEST_MIGRATED_TEMPLATE';

/**
 * Migrates one database with `npm run migrate` (dist/, built just before) for the suites to copy. Every service's
 * migrations took about 2 s per suite, over a hundred suites; a copy of the migrated database takes a fraction of
 * that and holds exactly what migrating gives, down to the migrations tables. The migrations themselves are still
 * run here, on every run, and tested on their own (scripts/test/migrate-all, migrations-reversible).
 */
export async function createMigratedTemplate(): Promise<void> {
  const databaseUrl = await createTestDatabase();
  const migrate = spawnSync(process.execPath, [join(ROOT, 'dist/scripts/migrate.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
    encoding: 'utf8',
  });
  if (migrate.status !== 0) {
    await dropTestDatabase(databaseUrl);
    throw new Error(`migrating the template database failed: ${migrate.stdout}${migrate.stderr}`);
  }
  process.env[TEMPLATE_VARIABLE] = databaseUrl;
}

export async function dropMigratedTemplate(): Promise<void> {
  const databaseUrl = process.env[TEMPLATE_VARIABLE];
  if (databaseUrl) await dropTestDatabase(databaseUrl);
}

/** A fresh database of the suite's own with every service's migrations applied: a copy of the run's migrated template. */
export async function createMigratedTestDatabase(): Promise<string> {
  const template = process.env[TEMPLATE_VARIABLE];
  if (!template) throw new Error(`${TEMPLATE_VARIABLE} is not set: the e2e global setup (libs/testing/src/global-setup.ts) migrates the template`);
  return createTestDatabase({ template: new URL(template).pathname.slice(1) });
}
