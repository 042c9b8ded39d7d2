import type { MailroomConfig } from '@mailroom/config';
import { LocalDatabase, startEmbeddedPostgres } from './embedded-postgres';

/** DATABASE_URL when set, otherwise the embedded Postgres under DATA_DIR. */
export async function resolveDatabase(config: MailroomConfig, log: (line: string) => void): Promise<LocalDatabase> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, stop: async () => undefined };
  return startEmbeddedPostgres(config.DATA_DIR, config.EMBEDDED_PG_PORT, log);
}
