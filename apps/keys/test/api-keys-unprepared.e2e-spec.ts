import { Client } from 'pg';
import { startStack, Stack } from '@mailroom/testing';

/**
 * DATABASE_PREPARED_STATEMENTS=false is for poolers that cannot keep named
 * statements (PgBouncer in transaction mode before 1.21): no statement may be
 * prepared then. A statement the keys service prepared anyway shows itself
 * when a column it returns changes type: Postgres refuses to run it again on
 * that connection ("cached plan must not change result type"). Unprepared,
 * each lookup is planned afresh and the change is invisible.
 */
describe('the key lookups with DATABASE_PREPARED_STATEMENTS=false', () => {
  let stack: Stack;

  beforeAll(async () => {
    // No cache in front of the lookups: every request reaches Postgres.
    stack = await startStack({ apps: ['keys', 'gateway'], env: { DATABASE_PREPARED_STATEMENTS: 'false', KEY_CACHE_TTL_MS: '0', KEY_READ_CACHE_TTL_MS: '0' } });
  });
  afterAll(() => stack?.stop());

  it('run unprepared: authentication and GET by id survive a column changing type', async () => {
    const { key, id } = await stack.issueKey({ name: 'unprepared' });
    const api = stack.api.withKey(key);
    for (let i = 0; i < 3; i += 1) expect((await api.get(`/v1/api-keys/${id}`)).status).toBe(200);
    const db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    try {
      await db.query('ALTER TABLE keys.api_keys ALTER COLUMN name TYPE varchar(200)');
    } finally {
      await db.end();
    }
    for (let i = 0; i < 3; i += 1) {
      const response = await api.get(`/v1/api-keys/${id}`);
      expect({ status: response.status, body: response.status === 200 ? 'ok' : response.body }).toEqual({ status: 200, body: 'ok' });
    }
  });
});
