import { DataSource } from 'typeorm';
import { runServiceMigrations, serviceDataSourceOptions } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { WEBHOOKS_SCHEMA } from '../../src/database/data-source';

export interface WebhooksDatabase {
  dataSource: DataSource;
  stop(): Promise<void>;
}

/**
 * A fresh database with the webhooks schema migrated and one live webhook,
 * `wh_1`, subscribed to every event: for tests of the dispatcher's queries
 * against real Postgres without the rest of the stack.
 */
export async function startWebhooksDatabase(): Promise<WebhooksDatabase> {
  const databaseUrl = await createTestDatabase();
  await runServiceMigrations(databaseUrl, WEBHOOKS_SCHEMA);
  const dataSource = await new DataSource(serviceDataSourceOptions(databaseUrl, WEBHOOKS_SCHEMA, { size: 4 })).initialize();
  await dataSource.query(
    `INSERT INTO webhooks.webhooks (id, mode, url, events, status, secret_sealed, failure_count, failed_deliveries_streak)
     VALUES ('wh_1', 'live', 'https://hooks.example/1', ARRAY['*'], 'active', 'sealed', 0, 0)`,
  );
  return {
    dataSource,
    stop: async () => {
      await dataSource.destroy();
      await dropTestDatabase(databaseUrl);
    },
  };
}
