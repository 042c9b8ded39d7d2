import { DataSource } from 'typeorm';

const UNDEFINED_TABLE = '42P01';
const UNDEFINED_SCHEMA = '3F000';
/** How often a waiting app looks again, and how often it says again what it waits for. */
const LOOK_AGAIN_MS = 1_000;
const SAY_AGAIN_MS = 30_000;

/** The app's migrations its database does not hold yet, by name, in the order they run. */
export async function pendingMigrations(dataSource: DataSource): Promise<string[]> {
  const { schema, migrationsTableName } = dataSource.options as { schema?: string; migrationsTableName?: string };
  let applied: Set<string>;
  try {
    const rows: Array<{ name: string }> = await dataSource.query(`SELECT name FROM "${schema ?? 'public'}"."${migrationsTableName ?? 'migrations'}"`);
    applied = new Set(rows.map((row) => row.name));
  } catch (error) {
    // Nothing migrated yet: no schema, or no migrations table in it.
    const code = (error as { code?: unknown }).code;
    if (code !== UNDEFINED_TABLE && code !== UNDEFINED_SCHEMA) throw error;
    applied = new Set();
  }
  return dataSource.migrations
    .map((migration) => migration.name ?? migration.constructor.name)
    .filter((name) => !applied.has(name))
    .sort(byTimestamp);
}

/** TypeORM names a migration <Name><timestamp> and runs them by timestamp. */
function byTimestamp(a: string, b: string): number {
  const timestamp = (name: string) => Number(/\d+$/.exec(name)?.[0] ?? 0);
  return timestamp(a) - timestamp(b);
}

/**
 * Resolves once every migration of the app's code is applied. A pod of a new
 * release can start before the migrations Job of that release has run (the
 * Job deleted and applied beside the Deployments, a CD tool that does not
 * order them); started at once, it took requests and ran background work on
 * a schema without the columns its code uses. It says what it waits for, and
 * again every 30 s.
 */
export async function awaitAppliedMigrations(dataSource: DataSource, say: (line: string) => void): Promise<void> {
  let saidAt = -Infinity;
  for (;;) {
    const pending = await pendingMigrations(dataSource);
    if (!pending.length) return;
    if (performance.now() - saidAt >= SAY_AGAIN_MS) {
      saidAt = performance.now();
      const schema = (dataSource.options as { schema?: string }).schema;
      say(
        `waiting for ${pending.length} migration${pending.length === 1 ? '' : 's'} of the ${schema} schema to be applied ` +
          `(${pending.join(', ')}): run npm run migrate (on Kubernetes, the mailroom-migrate Job); the app starts once they are`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, LOOK_AGAIN_MS));
  }
}
