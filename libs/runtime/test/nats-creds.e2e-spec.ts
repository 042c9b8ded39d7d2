import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, natsOperatorSetup, Stack, startAppProcess, startStack } from '@mailroom/testing';

/** NATS_CREDS_FILE: the apps authenticate with a user JWT and NKey seed to a server in operator mode. */
describe('apps on a NATS server in operator (JWT) mode, with NATS_CREDS_FILE', () => {
  let stack: Stack;
  const setup = natsOperatorSetup();
  const credsFile = join(mkdtempSync(join(tmpdir(), 'mailroom-creds-')), 'mailroom.creds');
  writeFileSync(credsFile, setup.creds);

  beforeAll(async () => {
    stack = await startStack({ natsAccess: { config: setup.config }, env: { NATS_CREDS_FILE: credsFile, DKIM_DNS_BIND: 'off' } });
  });
  afterAll(() => stack?.stop());

  it('boots every app; requests are answered and events go through JetStream', async () => {
    expect((await stack.api.get('/health', { key: null })).status).toBe(200);
    const { key } = await stack.issueKey({ name: 'creds', mode: 'test' });
    const api = stack.api.withKey(key);
    const sent = await api.post('/v1/emails', { from: 'a@creds.example.com', to: 'delivered@example.com', subject: 'Hi', text: 'hi' });
    expect(sent.status).toBe(202);
    await eventually(async () => (await api.get('/v1/analytics?interval=hour')).body.totals?.delivered === 1, 20000);
  });

  it('is refused without the creds file, and says so', async () => {
    const keys = startAppProcess('keys', { NATS_URL: stack.nats.bareUrl, DATABASE_URL: stack.databaseUrl, HEALTH_PORT: '0' });
    expect(await keys.exited).toEqual({ code: 1, signal: null });
    expect(keys.stderr()).toContain("refused to let this app in ('Authorization Violation')");
  });
});
