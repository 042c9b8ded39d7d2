import { fanOutDeliveryIdSql } from '../src/dispatch/delivery-ids';
import { DispatchRepository } from '../src/dispatch/dispatch.repository';
import { startWebhooksDatabase, WebhooksDatabase } from './support/webhooks-database';

/** The ids fan-out gives deliveries, as Postgres builds them. */
describe('fan-out delivery ids against Postgres', () => {
  let database: WebhooksDatabase;

  beforeAll(async () => {
    database = await startWebhooksDatabase();
  });

  afterAll(() => database?.stop());

  it('gives every row number of one statement its own id, past 999,999 and up to the largest row number', async () => {
    const prefix = 'whd_01JD7X3Q9Y5T4V2W8K6M';
    const rowNumbers = ['1', '100000', '999999', '1000000', '1000001', '10000000', '9223372036854775807'];
    const rows: Array<{ id: string }> = await database.dataSource.query(
      `SELECT ${fanOutDeliveryIdSql('$1::text', 'n')} AS id FROM unnest($2::bigint[]) WITH ORDINALITY AS u(n, i) ORDER BY i`,
      [prefix, rowNumbers],
    );
    const ids = rows.map((row) => row.id);
    expect(new Set(ids).size).toBe(rowNumbers.length);
    expect(ids).toEqual(['000001', '100000', '999999', '1000000', '1000001', '10000000', '9223372036854775807'].map((suffix) => prefix + suffix));
  });

  it('writes ids of a ULID length that sort by time, one per matching webhook', async () => {
    await database.dataSource.query(
      `INSERT INTO webhooks.webhooks (id, mode, url, events, status, secret_sealed, failure_count, failed_deliveries_streak)
       VALUES ('wh_2', 'live', 'https://hooks.example/2', ARRAY['*'], 'active', 'sealed', 0, 0)`,
    );
    const repository = new DispatchRepository(database.dataSource);
    const event = (id: string) => ({ id, type: 'email.sent', mode: 'live' as const, createdAt: new Date().toISOString(), data: {} });
    expect(await repository.fanOut([event('evt_1'), event('evt_2')], 0, 3)).toBe(4);
    const rows: Array<{ id: string }> = await database.dataSource.query(`SELECT id FROM webhooks.deliveries ORDER BY id`);
    expect(rows).toHaveLength(4);
    for (const { id } of rows) expect(id).toMatch(/^whd_[0-9A-HJKMNP-TV-Z]{20}\d{6}$/);
    expect(new Set(rows.map((row) => row.id.slice(0, 24))).size).toBe(1);
  });
});
