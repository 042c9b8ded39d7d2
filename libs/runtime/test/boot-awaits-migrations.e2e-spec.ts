import { connect } from 'nats';
import { runServiceMigrations } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase, eventually, freePort, PrivateNats, PROCESS_READY_TIMEOUT_MS, startAppProcess, startPrivateNats } from '@mailroom/testing';
import { KEYS_SCHEMA } from '../../../apps/keys/src/database/data-source';

/**
 * A pod of a new release can start before the migrations Job has applied that release's migrations (the
 * Job deleted and re-applied beside the Deployments, a CD tool that does not order them). Started at once, it
 * answered requests and ran its background work on a schema without the columns its code uses.
 */
describe('an app whose migrations are not yet applied', () => {
  let nats: PrivateNats;
  let databaseUrl: string;

  beforeAll(async () => {
    nats = await startPrivateNats();
    databaseUrl = await createTestDatabase();
  });

  afterAll(async () => {
    await nats?.destroy();
    if (databaseUrl) await dropTestDatabase(databaseUrl);
  });

  it('answers live but not ready, says which migrations it waits for, and starts once they are applied', async () => {
    const healthPort = await freePort();
    const keys = startAppProcess('keys', { DATABASE_URL: databaseUrl, NATS_URL: nats.url, HEALTH_PORT: String(healthPort), HEALTH_HOST: '127.0.0.1' });
    const probe = (path: string) => fetch(`http://127.0.0.1:${healthPort}${path}`).then(async (response) => ({ status: response.status, body: (await response.json()) as { checks?: Record<string, string> } }), () => undefined);
    try {
      const waiting = await eventually(() => probe('/health/ready'), PROCESS_READY_TIMEOUT_MS);
      expect(waiting.status).toBe(503);
      expect(waiting.body.checks).toMatchObject({ database: 'ok', migrations: 'pending' });
      expect((await probe('/health/live'))?.status).toBe(200);
      await eventually(() => keys.stdout().includes('CreateApiKeys1763800000000'), PROCESS_READY_TIMEOUT_MS);
      expect(keys.stdout()).toContain('waiting for 4 migrations of the keys schema');

      await runServiceMigrations(databaseUrl, KEYS_SCHEMA);
      const ready = await eventually(async () => {
        const answer = await probe('/health/ready');
        return answer?.status === 200 && answer;
      }, PROCESS_READY_TIMEOUT_MS);
      expect(ready.body).toEqual({ status: 'ok', checks: { nats: 'ok', database: 'ok' } });
      // Subscribed: the keys service answers its health subject over NATS.
      const connection = await connect({ servers: nats.url });
      try {
        const reply = await connection.request('keys.health.check', new Uint8Array(), { timeout: 5_000 });
        expect(reply.data.length).toBeGreaterThan(0);
      } finally {
        await connection.close();
      }
    } finally {
      keys.child.kill('SIGTERM');
      await keys.exited;
    }
  }, PROCESS_READY_TIMEOUT_MS * 3);
});
