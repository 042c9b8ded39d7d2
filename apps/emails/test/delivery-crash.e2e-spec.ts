import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { eventually, PROCESS_READY_TIMEOUT_MS } from '@mailroom/testing';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

const ROOT = join(__dirname, '../../..');

/**
 * The emails process is killed (SIGKILL) while the SMTP server holds its DATA
 * reply. After a restart the lease has run out, the email is claimed again and
 * delivered: the recipient gets it once, or twice with the same Message-ID.
 */
describe('delivery across a crash of the emails process', () => {
  let harness: DeliveryHarness;
  let child: ChildProcess | undefined;

  const startEmails = () => {
    const config = harness.stack.configFor('emails');
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: harness.stack.databaseUrl,
      NATS_URL: harness.stack.nats.url,
      HEALTH_PORT: '0',
      DELIVERY_MODE: 'mx',
      DNS_SERVERS: config.DNS_SERVERS.join(','),
      SMTP_MX_PORT: String(config.SMTP_MX_PORT),
      DELIVERY_ALLOW_PRIVATE_MX: 'true',
      SMTP_HELO_NAME: 'mailroom.test',
      DELIVERY_RETRY_SCHEDULE: '500ms,500ms,500ms',
      DELIVERY_POLL_MS: '50',
      DELIVERY_LEASE_MS: '2000',
    };
    child = spawn(process.execPath, [join(ROOT, 'dist/apps/emails/src/main.js')], { cwd: ROOT, env, stdio: 'ignore' });
  };

  beforeAll(async () => {
    // dist/ was built by the e2e global setup (buildApps).
    harness = await startDeliveryHarness({}, ['keys', 'domains', 'webhook-dispatcher', 'gateway']);
    routeMailTo(harness.dns, 'example.test');
    startEmails();
    await eventually(async () => (await harness.stack.api.get('/health', { key: null })).status === 200, PROCESS_READY_TIMEOUT_MS);
    await verifiedDomain(harness, 'acme.test');
  }, 240000);

  afterAll(async () => {
    child?.kill('SIGKILL');
    await harness?.stop();
  });

  it('delivers after a restart, with the same Message-ID if the message went out twice', async () => {
    const held = harness.smtp.holdNextData();
    const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'crash@example.test', subject: 'Crash', text: 'x' });
    expect(sent.status).toBe(202);
    await held.arrived;

    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child!.kill('SIGKILL');
    await exited;
    // The server did accept the message; the dead client never heard it.
    held.release();

    startEmails();
    // Boots the process again first.
    const email = await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['delivered'], PROCESS_READY_TIMEOUT_MS);
    expect(email.recipients[0].status).toBe('delivered');

    const received = harness.smtp.messagesFor('crash@example.test');
    expect(received.length === 1 || received.length === 2).toBe(true);
    const messageIds = new Set(received.map((message) => /^Message-ID: (.+)\r$/m.exec(message.raw.toString())![1]));
    expect([...messageIds]).toEqual([`<${sent.body.id}@acme.test>`]);
  }, PROCESS_READY_TIMEOUT_MS + 60_000);
});
