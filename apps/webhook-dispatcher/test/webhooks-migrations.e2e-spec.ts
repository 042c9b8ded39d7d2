import { DataSource } from 'typeorm';
import { MigratedSchema, startMigratedSchema } from '@mailroom/testing';
import { WEBHOOKS_SCHEMA } from '../src/database/data-source';

describe('webhooks schema migrations', () => {
  let database: MigratedSchema;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await startMigratedSchema(WEBHOOKS_SCHEMA);
    dataSource = database.dataSource;
  });

  afterAll(() => database?.destroy());

  it('leaves webhooks made before domain restrictions unrestricted, so they keep receiving every domain', async () => {
    await database.undoThrough('AddWebhookDomainRestrictions1763800000320');
    await dataSource.query(
      `INSERT INTO webhooks.webhooks (id, mode, url, events, status, secret_sealed, failure_count, failed_deliveries_streak)
       VALUES ('wh_old', 'live', 'https://hooks.example/old', ARRAY['*'], 'active', 'sealed', 0, 0)`,
    );
    await dataSource.runMigrations({ transaction: 'each' });

    expect(await dataSource.query('SELECT id, domain_restrictions FROM webhooks.webhooks')).toEqual([{ id: 'wh_old', domain_restrictions: [] }]);
  });
});
