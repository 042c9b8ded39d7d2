import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { runServiceMigrations, serviceDataSourceOptions } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { EMAILS_SCHEMA } from '../src/database/data-source';
import { DeliveryRepository } from '../src/delivery/delivery.repository';

const OWNER = 'worker-1';
const IDS = ['email_a', 'email_b', 'email_c', 'email_d'];
/** Longer than any renewal may take: a renewal that waits for a lock shows as one that never finished. */
const BLOCKED_AFTER_MS = 3000;

/**
 * Lease renewal runs beside the attempt recorder, which locks the emails it
 * records in id order. Against real Postgres: a renewal must never wait for
 * such a lock, since waiting while holding other rows is what made the two
 * deadlock.
 */
describe('DeliveryRepository.renewLeases', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let recorder: Client;
  let repository: DeliveryRepository;

  const expiries = async (): Promise<Map<string, number>> => {
    const rows: Array<{ id: string; expires: number }> = await dataSource.query(
      `SELECT id, extract(epoch FROM lease_expires_at)::float8 AS expires FROM emails.emails ORDER BY id`,
    );
    return new Map(rows.map((row) => [row.id, row.expires]));
  };

  /** Settles with the renewed ids, or with 'blocked' if the renewal is still waiting after BLOCKED_AFTER_MS. */
  const renewWithin = async (ids: string[]): Promise<string[] | 'blocked'> => {
    let timer: NodeJS.Timeout | undefined;
    const blocked = new Promise<'blocked'>((resolve) => (timer = setTimeout(() => resolve('blocked'), BLOCKED_AFTER_MS)));
    try {
      return await Promise.race([repository.renewLeases(OWNER, ids, 600_000), blocked]);
    } finally {
      clearTimeout(timer);
    }
  };

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    await runServiceMigrations(databaseUrl, EMAILS_SCHEMA);
    dataSource = await new DataSource(serviceDataSourceOptions(databaseUrl, EMAILS_SCHEMA, 4)).initialize();
    repository = new DeliveryRepository(dataSource);
    recorder = new Client({ connectionString: databaseUrl });
    await recorder.connect();
  });

  afterAll(async () => {
    await recorder?.end();
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  beforeEach(async () => {
    await dataSource.query(`TRUNCATE emails.emails CASCADE`);
    // email_d belongs to another worker; the rest to OWNER, each with a lease of one minute.
    await dataSource.query(
      `INSERT INTO emails.emails (id, mode, api_key_id, from_address, from_email, from_domain, "to", to_addresses, subject, status, message_id, lease_owner, lease_expires_at)
       SELECT id, 'live', 'key_1', 'hi@a.test', 'hi@a.test', 'a.test', ARRAY['ann@example.com'], ARRAY['ann@example.com'], 'lease', 'queued',
              '<' || id || '@a.test>', CASE WHEN id = 'email_d' THEN 'worker-2' ELSE $2 END, now() + interval '1 minute'
         FROM unnest($1::text[]) AS id`,
      [IDS, OWNER],
    );
  });

  it("extends only the owner's leases", async () => {
    const before = await expiries();
    expect((await repository.renewLeases(OWNER, IDS, 600_000)).sort()).toEqual(['email_a', 'email_b', 'email_c']);

    const after = await expiries();
    for (const id of ['email_a', 'email_b', 'email_c']) expect(after.get(id)! - before.get(id)!).toBeGreaterThan(500);
    expect(after.get('email_d')).toBe(before.get('email_d'));
  });

  it('skips a row another transaction holds, without waiting for it', async () => {
    const before = await expiries();
    await recorder.query('BEGIN');
    try {
      await recorder.query(`SELECT id FROM emails.emails WHERE id = 'email_b' FOR UPDATE`);
      const renewed = await renewWithin(IDS);
      expect(renewed).not.toBe('blocked');
      expect((renewed as string[]).sort()).toEqual(['email_a', 'email_c']);
    } finally {
      await recorder.query('COMMIT');
    }
    const after = await expiries();
    expect(after.get('email_b')).toBe(before.get('email_b'));
    expect(after.get('email_c')! - before.get('email_c')!).toBeGreaterThan(500);
  });

  it('cannot deadlock with a recorder that locks its rows in id order while a renewal runs', async () => {
    await recorder.query('BEGIN');
    try {
      // The recorder holds the first row; the renewal runs; then the recorder goes on to the last row.
      await recorder.query(`SELECT id FROM emails.emails WHERE id = 'email_a' FOR UPDATE`);
      const renewal = renewWithin(IDS);
      const recorderRest = recorder.query(`SELECT id FROM emails.emails WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [['email_b', 'email_c']]);
      const [renewed, rest] = await Promise.all([renewal, recorderRest]);
      expect(renewed).not.toBe('blocked');
      expect(rest.rows.map((row: { id: string }) => row.id)).toEqual(['email_b', 'email_c']);
    } finally {
      await recorder.query('COMMIT');
    }
  });
});
