import { DataSource } from 'typeorm';
import { runServiceMigrations, serviceDataSourceOptions } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase, undoMigrationsThrough } from '@mailroom/testing';
import { WEBHOOKS_SCHEMA } from '../src/database/data-source';

describe('webhooks schema migrations', () => {
  let databaseUrl: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    await runServiceMigrations(databaseUrl, WEBHOOKS_SCHEMA);
    dataSource = new DataSource(serviceDataSourceOptions(databaseUrl, WEBHOOKS_SCHEMA, 1));
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  it('leaves webhooks made before domain restrictions unrestricted, so they keep receiving every domain', async () => {
    await undoMigrationsThrough(dataSource, 'webhooks', 'AddWebhookDomainRestrictions1763800000320');
    await dataSource.query(
      `INSERT INTO webhooks.webhooks (id, mode, url, events, status, secret_sealed, failure_count, failed_deliveries_streak)
       VALUES ('wh_old', 'live', 'https://hooks.example/old', ARRAY['*'], 'active', 'sealed', 0, 0)`,
    );
    await dataSource.runMigrations({ transaction: 'each' });

    expect(await dataSource.query('SELECT id, domain_restrictions FROM webhooks.webhooks')).toEqual([{ id: 'wh_old', domain_restrictions: [] }]);
  });
});
