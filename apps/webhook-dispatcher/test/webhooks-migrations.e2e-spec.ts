import { DataSource } from 'typeorm';
import { IdempotencyKeyWait } from '@mailroom/runtime';
import { MigratedSchema, startMigratedSchema } from '@mailroom/testing';
import { WEBHOOKS_SCHEMA } from '../src/database/data-source';
import { WebhookIdempotency } from '../src/webhooks/webhook-idempotency';

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

  it('refuses to undo domain restrictions while a webhook holds some: migrated up again, it would receive every domain\'s events', async () => {
    await dataSource.query(
      `INSERT INTO webhooks.webhooks (id, mode, url, events, status, secret_sealed, failure_count, failed_deliveries_streak, domain_restrictions)
       VALUES ('wh_restricted', 'live', 'https://hooks.example/restricted', ARRAY['*'], 'active', 'sealed', 0, 0, ARRAY['a.test'])`,
    );
    const undone = await database.undoThrough('AddWebhookDomainRestrictions1763800000320').then(
      () => 'undone',
      (error: Error) => error.message,
    );
    expect(undone).toMatch(/1 webhook .*restricted to domains \(wh_restricted\)/);
    // Nothing undone: the restrictions and every migration after them stay.
    await dataSource.runMigrations({ transaction: 'each' });
    expect(await dataSource.query(`SELECT domain_restrictions FROM webhooks.webhooks WHERE id = 'wh_restricted'`)).toEqual([{ domain_restrictions: ['a.test'] }]);

    await dataSource.query(`DELETE FROM webhooks.webhooks WHERE id = 'wh_restricted'`);
    await database.undoThrough('AddWebhookDomainRestrictions1763800000320');
    await dataSource.runMigrations({ transaction: 'each' });
  });

  describe('payload_bytes', () => {
    const insertDelivery = (id: string, payload: object) =>
      dataSource.query(
        `INSERT INTO webhooks.deliveries (id, webhook_id, event_id, event_type, payload, status, attempts, attempt_limit, next_attempt_at)
         VALUES ($1, 'wh_sized', $1, 'email.delivered', $2::jsonb, 'pending', 0, 8, now())`,
        [id, JSON.stringify(payload)],
      );
    /** The file holding the table's rows: a new one means the table was rewritten. */
    const deliveriesFile = async (): Promise<string> => {
      const [row] = await dataSource.query(`SELECT relfilenode::text AS file FROM pg_class WHERE oid = 'webhooks.deliveries'::regclass`);
      return row.file;
    };
    const payloadBytesObjects = async () => {
      const [row] = await dataSource.query(
        `SELECT (SELECT count(*)::int FROM information_schema.columns WHERE table_schema = 'webhooks' AND table_name = 'deliveries' AND column_name = 'payload_bytes') AS columns,
                (SELECT count(*)::int FROM pg_trigger WHERE tgrelid = 'webhooks.deliveries'::regclass AND tgname = 'deliveries_payload_bytes') AS triggers,
                (SELECT count(*)::int FROM pg_proc WHERE pronamespace = 'webhooks'::regnamespace AND proname = 'deliveries_payload_bytes') AS functions`,
      );
      return row;
    };

    beforeAll(() =>
      dataSource.query(
        `INSERT INTO webhooks.webhooks (id, mode, url, events, status, secret_sealed, failure_count, failed_deliveries_streak)
         VALUES ('wh_sized', 'live', 'https://hooks.example/sized', ARRAY['*'], 'active', 'sealed', 0, 0)`,
      ),
    );

    it('is added without rewriting the deliveries table: rows already there keep NULL, rows inserted after get their size', async () => {
      await database.undoThrough('AddDeliveryPayloadBytes1763800000330');
      await insertDelivery('whd_before', { id: 'whd_before', data: { filler: 'x'.repeat(5000) } });
      const fileBefore = await deliveriesFile();
      await dataSource.runMigrations({ transaction: 'each' });
      expect(await deliveriesFile()).toBe(fileBefore);

      // As an insert that does not name the column does, a dispatcher of the previous version's fan-out among them.
      await insertDelivery('whd_after', { id: 'whd_after', data: {} });
      const sizes: Array<{ id: string; payload_bytes: number | null }> = await dataSource.query('SELECT id, payload_bytes FROM webhooks.deliveries ORDER BY id');
      // As Postgres prints jsonb: `{"id": "whd_after", "data": {}}`.
      expect(sizes).toEqual([
        { id: 'whd_after', payload_bytes: '{"id": "whd_after", "data": {}}'.length },
        { id: 'whd_before', payload_bytes: null },
      ]);
    });

    it('is removed with its trigger and function by down, and added again by up', async () => {
      expect(await payloadBytesObjects()).toEqual({ columns: 1, triggers: 1, functions: 1 });
      await database.undoThrough('AddDeliveryPayloadBytes1763800000330');
      expect(await payloadBytesObjects()).toEqual({ columns: 0, triggers: 0, functions: 0 });
      await dataSource.runMigrations({ transaction: 'each' });
      expect(await payloadBytesObjects()).toEqual({ columns: 1, triggers: 1, functions: 1 });
    });
  });

  describe('idempotency_keys', () => {
    const columns = async (): Promise<string[]> =>
      (await dataSource.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'webhooks' AND table_name = 'idempotency_keys' ORDER BY column_name`)).map(
        (row: { column_name: string }) => row.column_name,
      );

    it('is dropped by down and created again by up, holding the created webhook\'s id and never its secret', async () => {
      const keyColumns = ['api_key_id', 'created_at', 'key', 'request_hash', 'webhook_id'];
      expect(await columns()).toEqual(keyColumns);
      await database.undoThrough('CreateWebhookIdempotencyKeys1763800000340');
      expect(await columns()).toEqual([]);
      await dataSource.runMigrations({ transaction: 'each' });
      expect(await columns()).toEqual(keyColumns);
    });

    it('loses its keys past their 24 hours to the hourly purge, and keeps the fresh ones', async () => {
      await dataSource.query(
        `INSERT INTO webhooks.idempotency_keys (api_key_id, key, request_hash, webhook_id, created_at)
         VALUES ('key_1', 'old-1', 'hash', 'wh_1', now() - interval '25 hours'), ('key_2', 'old-2', 'hash', 'wh_2', now() - interval '24 hours 1 second'),
                ('key_1', 'fresh-1', 'hash', 'wh_3', now() - interval '23 hours 59 minutes'), ('key_2', 'fresh-2', 'hash', NULL, now())`,
      );
      const idempotency = new WebhookIdempotency(dataSource, new IdempotencyKeyWait({ RPC_TIMEOUT_MS: 5000 }));
      expect(await idempotency.purgeExpired()).toBe(2);
      expect(await dataSource.query('SELECT key FROM webhooks.idempotency_keys ORDER BY key')).toEqual([{ key: 'fresh-1' }, { key: 'fresh-2' }]);
    });
  });
});
