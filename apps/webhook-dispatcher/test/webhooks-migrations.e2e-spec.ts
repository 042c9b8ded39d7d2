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

  it('gives deliveries made before payload_bytes their payload size, and new ones theirs as they are written', async () => {
    await dataSource.query(
      `INSERT INTO webhooks.webhooks (id, mode, url, events, status, secret_sealed, failure_count, failed_deliveries_streak)
       VALUES ('wh_sized', 'live', 'https://hooks.example/sized', ARRAY['*'], 'active', 'sealed', 0, 0)`,
    );
    const insertDelivery = (id: string, payload: object) =>
      dataSource.query(
        `INSERT INTO webhooks.deliveries (id, webhook_id, event_id, event_type, payload, status, attempts, attempt_limit, next_attempt_at)
         VALUES ($1, 'wh_sized', $1, 'email.delivered', $2::jsonb, 'pending', 0, 8, now())`,
        [id, JSON.stringify(payload)],
      );
    await database.undoThrough('AddDeliveryPayloadBytes1763800000330');
    await insertDelivery('whd_before', { id: 'whd_before', data: { filler: 'x'.repeat(5000) } });
    await dataSource.runMigrations({ transaction: 'each' });
    await insertDelivery('whd_after', { id: 'whd_after', data: {} });

    const sizes: Array<{ id: string; payload_bytes: number }> = await dataSource.query('SELECT id, payload_bytes FROM webhooks.deliveries ORDER BY id');
    // As Postgres prints jsonb: `{"id": "whd_before", "data": {"filler": "xx…"}}`.
    expect(sizes).toEqual([
      { id: 'whd_after', payload_bytes: '{"id": "whd_after", "data": {}}'.length },
      { id: 'whd_before', payload_bytes: `{"id": "whd_before", "data": {"filler": "${'x'.repeat(5000)}"}}`.length },
    ]);
  });
});
