import { ApiClient, eventually, startReadOnlyDatabase, startStack, Stack } from '@mailroom/testing';

/** One write to each service that owns a schema, each with a body its route accepts. */
const WRITES: [string, string, () => unknown][] = [
  ['keys', '/v1/api-keys', () => ({ name: 'during failover' })],
  ['domains', '/v1/domains', () => ({ name: `failover-${Date.now()}.example` })],
  ['emails', '/v1/emails', () => ({ from: 'hi@acme.test', to: 'ann@example.com', subject: 'Failover', text: 'x' })],
  ['webhook-dispatcher', '/v1/webhooks', () => ({ url: 'https://hooks.example.com/failover', events: ['email.sent'] })],
];

/**
 * A failover as clients often see it: for a while their connections reach a
 * server that is a read-only standby (the old primary demoted, or a reader
 * behind a DNS name not yet moved). README promises 503 service_unavailable
 * while the database fails over, so a write refused for that must not be a
 * 500, which says the request or the code is wrong and is not retried.
 */
describe('writes while the database is a read-only standby', () => {
  let stack: Stack;
  let test: ApiClient;

  beforeAll(async () => {
    stack = await startStack();
    test = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
  });
  afterAll(() => stack?.stop());

  it('answers each write 503 service_unavailable, reads still 200, and writes succeed again once it is the primary', async () => {
    const standby = await startReadOnlyDatabase(stack.databaseUrl);
    try {
      for (const [service, path, body] of WRITES) {
        const response = await test.post(path, body());
        expect({ service, status: response.status, body: response.body }).toEqual({
          service,
          status: 503,
          body: { error: { code: 'service_unavailable', message: expect.stringMatching(/database is unavailable/) } },
        });
      }
      // Reads go on, on the connections left in the pool beside the one each refused write was given back as broken.
      const failedReads: unknown[] = [];
      for (let read = 0; read < 20; read += 1) {
        const response = await test.get('/v1/emails');
        if (response.status !== 200) failedReads.push(response.body);
      }
      expect(failedReads).toEqual([]);
    } finally {
      await standby.end();
    }
    // The connections opened meanwhile stay open and read-only (standby.end() leaves them, as a reader does once
    // DNS has moved): each service must leave them to write again.
    for (const [service, path, body] of WRITES) {
      await eventually(async () => [200, 201, 202].includes((await test.post(path, body())).status), 10000).catch(() => {
        throw new Error(`${service}: ${path} did not succeed again after the failover`);
      });
    }
  });
});
