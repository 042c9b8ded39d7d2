import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'nats';
import { eventually, Stack, startStack } from '@mailroom/testing';
import { WebhookReceiver } from '../../../apps/webhook-dispatcher/test/support/webhook-receiver';

const APPS = ['gateway', 'keys', 'domains', 'emails', 'webhook-dispatcher'] as const;
/** The README's users are named after the apps; the dispatcher's is `webhooks`, after its subjects. */
const USER_OF: Record<(typeof APPS)[number], string> = { gateway: 'gateway', keys: 'keys', domains: 'domains', emails: 'emails', 'webhook-dispatcher': 'webhooks' };

/** The `authorization` block of README's "Securing NATS", each `$<USER>_PASS` replaced by a password. */
function readmeAuthorization(): string {
  const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
  const block = /```\n(authorization \{[\s\S]*?\n\})\n```/.exec(readme);
  if (!block) throw new Error('README has no authorization block under Securing NATS');
  return block[1].replace(/\$([A-Z]+)_PASS/g, (_, user: string) => `"${user.toLowerCase()}-pass"`);
}

/**
 * The per-app NATS permissions README's "Securing NATS" gives operators are
 * enough for every app to do its work, and keep an app out of another's subjects.
 */
describe('the apps under the per-app NATS permissions of the README', () => {
  let stack: Stack;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    const natsConfig = readmeAuthorization();
    stack = await startStack({
      natsAccess: { config: natsConfig },
      env: { DKIM_DNS_BIND: 'off', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '0s' },
      natsUsers: Object.fromEntries(APPS.map((app) => [app, `${USER_OF[app]}:${USER_OF[app]}-pass`])),
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  it('boots every app; each answers the gateway and the events reach the dispatcher and the analytics', async () => {
    expect((await stack.api.get('/health', { key: null })).status).toBe(200);
    const { key } = await stack.issueKey({ name: 'permissions', mode: 'test' });
    const api = stack.api.withKey(key);
    expect((await api.post('/v1/webhooks', { url: receiver.url(), events: ['email.delivered'] })).status).toBe(201);
    const domain = await api.post('/v1/domains', { name: 'permissions.example.com' });
    expect((await api.delete(`/v1/domains/${domain.body.id}`)).status).toBe(200);
    const sent = await api.post('/v1/emails', { from: 'a@permissions.example.com', to: 'delivered@example.com', subject: 'Hi', text: 'hi' });
    expect(sent.status).toBe(202);
    await eventually(() => receiver.bodies().some((body) => body.type === 'email.delivered' && body.data.emailId === sent.body.id), 20000);
    await eventually(async () => (await api.get('/v1/analytics?interval=hour')).body.totals?.delivered === 1, 20000);
  });

  it('refuses the dispatcher\'s user a request to the keys service', async () => {
    const connection = await connect({ servers: stack.nats.bareUrl, user: 'webhooks', pass: 'webhooks-pass' });
    try {
      await expect(connection.request('keys.api-key.create', '{}', { timeout: 2000 })).rejects.toThrow(/Permissions Violation for Publish to "keys.api-key.create"/);
    } finally {
      await connection.close();
    }
  });
});
