import { Client } from 'pg';
import { eventually, Stack, startStack, untilBlockedBy } from '@mailroom/testing';

/**
 * POST /v1/webhooks/{id}/test and …/deliveries/{deliveryId}/retry read the
 * webhook, then write its delivery. A DELETE of the webhook that commits in
 * between left them writing for a webhook that is gone: the test delivery's
 * insert broke the foreign key (500 internal_error), and the retry's update
 * found no row and was answered 409 "being attempted right now". Both must
 * answer what any request for a deleted webhook gets, 404. Here a client
 * holds the DELETE open until the request waits on it.
 */
describe('a delivery by hand racing DELETE /v1/webhooks/{id}', () => {
  let stack: Stack;
  let deleter: Client;

  beforeAll(async () => {
    // A closed port on loopback: every attempt fails at once.
    stack = await startStack({ apps: ['keys', 'webhook-dispatcher', 'gateway'], env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    deleter = new Client({ connectionString: stack.databaseUrl });
    await deleter.connect();
  });
  afterAll(async () => {
    await deleter?.end();
    await stack?.stop();
  });

  /** Runs `request` while another transaction deletes the webhook, and commits that once the request waits on it. */
  async function whileDeleted<T>(id: string, request: () => Promise<T>): Promise<T> {
    await deleter.query('BEGIN');
    await deleter.query('DELETE FROM webhooks.webhooks WHERE id = $1', [id]);
    const pending = request();
    await untilBlockedBy(deleter);
    await deleter.query('COMMIT');
    return pending;
  }

  const webhook = async () => {
    const created = await stack.api.post('/v1/webhooks', { url: 'http://127.0.0.1:1/hook', events: ['*'] });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };

  it('answers a test send 404, and leaves no delivery behind', async () => {
    const id = await webhook();
    const sent = await whileDeleted(id, () => stack.api.post(`/v1/webhooks/${id}/test`));
    expect({ status: sent.status, body: sent.body }).toEqual({ status: 404, body: { error: { code: 'not_found', message: `No webhook with id '${id}' exists.` } } });
    const left = await deleter.query('SELECT count(*)::int AS count FROM webhooks.deliveries WHERE webhook_id = $1', [id]);
    expect(left.rows[0].count).toBe(0);
  });

  it('answers a retry 404, not 409', async () => {
    const id = await webhook();
    const sent = await stack.api.post(`/v1/webhooks/${id}/test`);
    expect(sent.status).toBe(202);
    await eventually(async () => ((await stack.api.get(`/v1/webhooks/${id}/deliveries`)).body.data[0]?.status === 'failed' ? true : undefined), 15_000);
    const retried = await whileDeleted(id, () => stack.api.post(`/v1/webhooks/${id}/deliveries/${sent.body.id}/retry`));
    expect({ status: retried.status, body: retried.body }).toEqual({ status: 404, body: { error: { code: 'not_found', message: `No webhook with id '${id}' exists.` } } });
  });
});
