import { runServiceMigrations } from '@mailroom/database';
import { SERVICE_SCHEMAS } from './service-schemas';

/** Runs every service's migrations against one database; each touches only its own schema. */
export async function migrateAll(databaseUrl: string, log: (line: string) => void = () => undefined): Promise<void> {
  for (const owned of SERVICE_SCHEMAS) {
    const applied = await runServiceMigrations(databaseUrl, owned);
    log(`${owned.schema}: ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'}`);
  }
}
