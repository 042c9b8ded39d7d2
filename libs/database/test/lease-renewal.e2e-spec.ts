import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { renewOwnLeasesSql } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';

const OWNER = 'worker-1';
const IDS = ['email_a', 'email_b', 'email_c', 'email_d'];
/** Longer than any renewal may take: a renewal that waits for a lock shows as one that never finished. */
const BLOCKED_AFTER_MS = 3000;

/**
 * Lease renewal (the emails worker's and the webhook dispatcher's) runs
 * beside the worker's attempt recorder, which locks the rows it records.
 * Against real Postgres: a renewal must never wait for such a lock, since
 * waiting while holding other rows is what made the two deadlock.
 */
describe('renewOwnLeasesSql', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let recorder: Client;
  const renewLeases = async (ids: string[]): Promise<string[]> =>
    ((await dataSource.query(renewOwnLeasesSql('queue'), [OWNER, ids, 600_000])) as Array<{ id: string }>).map((row) => row.id);

  const expiries = async (): Promise<Map<string, number>> => {
    const rows: Array<{ id: string; expires: number }> = await dataSource.query(
      `SELECT id, extract(epoch FROM lease_expires_at)::float8 AS expires FROM queue ORDER BY id`,
    );
    return new Map(rows.map((row) => [row.id, row.expires]));
  };

  /** Settles with the renewed ids, or with 'blocked' if the renewal is still waiting after BLOCKED_AFTER_MS. */
  const renewWithin = async (ids: string[]): Promise<string[] | 'blocked'> => {
    let timer: NodeJS.Timeout | undefined;
    const blocked = new Promise<'blocked'>((resolve) => (timer = setTimeout(() => resolve('blocked'), BLOCKED_AFTER_MS)));
    try {
      return await Promise.race([renewLeases(ids), blocked]);
    } finally {
      clearTimeout(timer);
    }
  };

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: databaseUrl }).initialize();
    await dataSource.query(`CREATE TABLE queue (id text PRIMARY KEY, lease_owner text, lease_expires_at timestamptz)`);
    recorder = new Client({ connectionString: databaseUrl });
    await recorder.connect();
  });

  afterAll(async () => {
    await recorder?.end();
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  beforeEach(async () => {
    await dataSource.query(`TRUNCATE queue`);
    // email_d belongs to another worker; the rest to OWNER, each with a lease of one minute.
    await dataSource.query(
      `INSERT INTO queue SELECT id, CASE WHEN id = 'email_d' THEN 'worker-2' ELSE $2 END, now() + interval '1 minute' FROM unnest($1::text[]) AS id`,
      [IDS, OWNER],
    );
  });

  it("extends only the owner's leases", async () => {
    const before = await expiries();
    expect((await renewLeases(IDS)).sort()).toEqual(['email_a', 'email_b', 'email_c']);

    const after = await expiries();
    for (const id of ['email_a', 'email_b', 'email_c']) expect(after.get(id)! - before.get(id)!).toBeGreaterThan(500);
    expect(after.get('email_d')).toBe(before.get('email_d'));
  });

  it('skips a row another transaction holds, without waiting for it', async () => {
    const before = await expiries();
    await recorder.query('BEGIN');
    try {
      await recorder.query(`SELECT id FROM queue WHERE id = 'email_b' FOR UPDATE`);
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
      await recorder.query(`SELECT id FROM queue WHERE id = 'email_a' FOR UPDATE`);
      const renewal = renewWithin(IDS);
      const recorderRest = recorder.query(`SELECT id FROM queue WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [['email_b', 'email_c']]);
      const [renewed, rest] = await Promise.all([renewal, recorderRest]);
      expect(renewed).not.toBe('blocked');
      expect(rest.rows.map((row: { id: string }) => row.id)).toEqual(['email_b', 'email_c']);
    } finally {
      await recorder.query('COMMIT');
    }
  });
});
