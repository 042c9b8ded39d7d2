import { Client } from 'pg';
import { Stack, startStack, untilBlockedBy } from '@mailroom/testing';

/**
 * A PATCH (or a secret rotation) racing the dispatcher's record of an attempt.
 * The dispatcher updates a webhook's health under a row lock; here a client
 * holds that lock with an update of its own, as the recorder does, while the
 * PATCH arrives. The PATCH must wait and keep what was recorded, not write
 * back the health it read before.
 */
describe('PATCH /v1/webhooks/{id} while an attempt is being recorded', () => {
  let stack: Stack;
  let recorder: Client;

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'webhook-dispatcher', 'gateway'] });
    recorder = new Client({ connectionString: stack.databaseUrl });
    await recorder.connect();
  });
  afterAll(async () => {
    await recorder?.end();
    await stack?.stop();
  });

  /** Runs `request` while the recorder holds the webhook's row with a 410 recorded but not yet committed. */
  async function whileA410IsRecorded<T>(id: string, request: () => Promise<T>): Promise<T> {
    await recorder.query('BEGIN');
    await recorder.query('SELECT 1 FROM webhooks.webhooks WHERE id = $1 FOR NO KEY UPDATE', [id]);
    await recorder.query(
      `UPDATE webhooks.webhooks SET status = 'disabled', failure_count = 3, disabled_reason = 'the endpoint answered 410 Gone', last_delivery_status = 'failure', last_delivery_at = now() WHERE id = $1`,
      [id],
    );
    const pending = request();
    await untilBlockedBy(recorder);
    await recorder.query('COMMIT');
    return pending;
  }

  it('keeps the recorded failure and the disabling, and applies its own change', async () => {
    const created = await stack.api.post('/v1/webhooks', { url: 'https://example.com/hook', events: ['*'] });
    expect(created.status).toBe(201);
    const patched = await whileA410IsRecorded(created.body.id, () => stack.api.patch(`/v1/webhooks/${created.body.id}`, { description: 'renamed' }));
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: 'renamed', status: 'disabled', failureCount: 3, lastDeliveryStatus: 'failure' });
    expect((await stack.api.get(`/v1/webhooks/${created.body.id}`)).body).toMatchObject({ description: 'renamed', status: 'disabled', failureCount: 3 });
  });

  it('keeps the recorded health across a secret rotation', async () => {
    const created = await stack.api.post('/v1/webhooks', { url: 'https://example.com/rotated', events: ['*'] });
    const rotated = await whileA410IsRecorded(created.body.id, () => stack.api.post(`/v1/webhooks/${created.body.id}/secret/rotate`));
    expect(rotated.status).toBe(200);
    expect((await stack.api.get(`/v1/webhooks/${created.body.id}`)).body).toMatchObject({ status: 'disabled', failureCount: 3 });
    expect((await stack.api.get(`/v1/webhooks/${created.body.id}/secret`)).body.secret).toBe(rotated.body.secret);
  });
});
