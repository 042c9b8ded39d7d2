import { connect, NatsConnection } from 'nats';
import { eventually, startStack, Stack } from '@mailroom/testing';

/**
 * The gateway keeps authenticating cached keys while the keys service is down
 * (a restart, a deploy of a single replica), so the uses it reports then must
 * reach lastUsedAt once the service is back, not vanish on a bus nobody hears.
 */
describe('lastUsedAt across a keys service restart', () => {
  let stack: Stack;
  let watcher: NatsConnection;

  beforeAll(async () => {
    // A report the keys service took while it was closing is never answered: the gateway sends it again after
    // RPC_TIMEOUT_MS, kept short here so that repeat comes well within the waits below.
    stack = await startStack({ apps: ['keys', 'domains', 'gateway'], env: { LAST_USED_FLUSH_MS: '200', RPC_TIMEOUT_MS: '1000' } });
    watcher = await connect({ servers: stack.nats.url });
  });
  afterAll(async () => {
    await watcher?.close();
    await stack?.stop();
  });

  const lastUsedAt = async (id: string): Promise<number | undefined> => {
    const answer = await stack.api.get(`/v1/api-keys/${id}`);
    return answer.status === 200 && answer.body.lastUsedAt ? Date.parse(answer.body.lastUsedAt) : undefined;
  };

  it('records a use the gateway reported while the keys service was down, once it is back', async () => {
    const key = (await stack.api.post('/v1/api-keys', { name: 'used across a restart' })).body;
    // The first use caches the key in the gateway, so it authenticates without the keys service.
    expect((await stack.api.get('/v1/domains', { key: key.key })).status).toBe(200);
    const firstUse = await eventually(() => lastUsedAt(key.id), 5000);

    await stack.stopApp('keys');
    // A message on the bus that names the key, other than the request it made of the domains service:
    // the gateway's report of the use below.
    const reports = watcher.subscribe('>');
    let reported = false;
    void (async () => {
      for await (const message of reports) if (!/^(_INBOX|domains)\./.test(message.subject) && message.string().includes(key.id)) reported = true;
    })();
    // The server has the subscription before the use below: a report published first would pass unseen (a CI run
    // beside other suites missed it, and a report the keys service still answered while closing is not sent again).
    await watcher.flush();
    const usedAt = Date.now();
    expect((await stack.api.get('/v1/domains', { key: key.key })).status).toBe(200);
    await eventually(() => reported, 10_000);
    reports.unsubscribe();

    await stack.startApp('keys');
    const recorded = await eventually(async () => {
      const at = await lastUsedAt(key.id);
      return at !== undefined && at > firstUse ? at : undefined;
    }, 10_000);
    expect(recorded).toBeGreaterThanOrEqual(usedAt - 1000);
    expect(recorded).toBeLessThanOrEqual(Date.now());
  });
});
