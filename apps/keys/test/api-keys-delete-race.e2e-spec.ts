import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { KeysEvents } from '@mailroom/contracts';
import { eventually, startStack, Stack, untilBlockedBy } from '@mailroom/testing';

/**
 * DELETE /v1/api-keys/{id} racing other writes to the same key. A client
 * here holds the key's row with an uncommitted change, as a PATCH in flight
 * does, while the DELETE arrives; Postgres shows when the DELETE waits on it.
 */
describe('DELETE /v1/api-keys/{id} racing other writes', () => {
  let stack: Stack;
  let writer: Client;
  let nats: NatsConnection;
  /** keyId of every api-key.changed broadcast heard, in order. */
  const changed: string[] = [];

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'gateway'] });
    writer = new Client({ connectionString: stack.databaseUrl });
    await writer.connect();
    nats = await connect({ servers: stack.nats.url });
    // Nest's NATS transport wraps what is emitted: { pattern, data }.
    nats.subscribe(KeysEvents.changed, { callback: (_error, message) => changed.push(message.json<{ data: { keyId: string } }>().data.keyId) });
    await nats.flush();
  });
  afterAll(async () => {
    await nats?.close();
    await writer?.end();
    await stack?.stop();
  });

  /** Runs `request` while `writer` holds the key's row with `change` made but not committed, then commits it. */
  async function whileRowIsChanged<T>(id: string, change: string, request: () => Promise<T>): Promise<T> {
    await writer.query('BEGIN');
    try {
      await writer.query(`UPDATE keys.api_keys SET ${change} WHERE id = $1`, [id]);
      const pending = request();
      await untilBlockedBy(writer);
      await writer.query('COMMIT');
      return await pending;
    } finally {
      // A request that did not wait leaves the transaction open; the next test must not inherit it.
      await writer.query('ROLLBACK');
    }
  }

  it('judges the caller against the key as it is when deleted: a key raised to * meanwhile is out of reach of an api-keys:* key', async () => {
    const manager = await stack.issueKey({ name: 'manager', permissions: ['api-keys:*'] });
    const target = await stack.issueKey({ name: 'target', permissions: ['api-keys:*'] });
    const answer = await whileRowIsChanged(target.id, `permissions = '{*}'`, () => stack.api.delete(`/v1/api-keys/${target.id}`, { key: manager.key }));
    expect(answer.status).toBe(403);
    expect(answer.body.error).toEqual({ code: 'forbidden', message: expect.stringContaining(target.id) });
    expect((await stack.api.get(`/v1/api-keys/${target.id}`)).body).toMatchObject({ id: target.id, permissions: ['*'] });
    expect((await stack.api.get('/v1/api-keys', { key: target.key })).status).toBe(200);
  });

  it('deletes a key narrowed meanwhile within the caller\'s reach', async () => {
    const manager = await stack.issueKey({ name: 'manager', permissions: ['api-keys:*'] });
    const target = await stack.issueKey({ name: 'target', permissions: ['*'] });
    const answer = await whileRowIsChanged(target.id, `permissions = '{api-keys:*}'`, () => stack.api.delete(`/v1/api-keys/${target.id}`, { key: manager.key }));
    expect(answer.status).toBe(200);
    expect((await stack.api.get(`/v1/api-keys/${target.id}`)).status).toBe(404);
  });

  it('of several DELETEs at once, one answers 200 and broadcasts the change once; the rest answer 404', async () => {
    const target = await stack.issueKey({ name: 'target' });
    const answers = await Promise.all(Array.from({ length: 8 }, () => stack.api.delete(`/v1/api-keys/${target.id}`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404, 404, 404, 404, 404, 404, 404]);
    // The keys service emits on one connection, in order: once a later change is heard, every earlier one has been.
    const marker = await stack.issueKey({ name: 'marker' });
    expect((await stack.api.patch(`/v1/api-keys/${marker.id}`, { name: 'marked' })).status).toBe(200);
    await eventually(async () => (changed.includes(marker.id) ? true : undefined), 15_000);
    expect(changed.filter((keyId) => keyId === target.id)).toEqual([target.id]);
  });
});
