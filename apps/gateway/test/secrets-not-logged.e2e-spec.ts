import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { hashApiKey, SecretBox } from '@mailroom/auth';
import { setLogDestination } from '@mailroom/runtime';
import { eventually, startStack, startTestSmtp, Stack, TestSmtp } from '@mailroom/testing';
import { emailReaching, LOOPBACK_WEBHOOKS_ENV, MailNetwork, startMailNetwork, verifiedDomainThrough } from '../../emails/test/support/delivery-harness';
import { WebhookReceiver } from '../../webhook-dispatcher/test/support/webhook-receiver';

describe('logs', () => {
  let stack: Stack;
  const lines: string[] = [];

  beforeAll(async () => {
    setLogDestination({ write: (line: string) => void lines.push(line) });
    stack = await startStack({ env: { LOG_LEVEL: 'trace' } });
  });
  afterAll(async () => {
    await stack?.stop();
    setLogDestination(undefined);
  });

  it('are JSON and never contain API keys, key hashes, webhook secrets or message bodies', async () => {
    const created = await stack.api.post('/v1/api-keys', { name: 'logged?', permissions: ['*'] });
    const secretKey: string = created.body.key;
    await stack.api.withKey(secretKey).get('/v1/api-keys');
    await stack.api.withKey(`${secretKey.slice(0, -1)}x`).get('/v1/api-keys');
    const webhook = await stack.api.post('/v1/webhooks', { url: 'https://hooks.example.com/in', events: ['*'] });
    // Checked, not assumed: a webhook that failed to be created would have left its secret out of the check below.
    expect(webhook.status).toBe(201);
    const body = 'BODY-7f3a9c-never-log-me';
    const { key: testKey } = await stack.issueKey({ mode: 'test' });
    await stack.api.withKey(testKey).post('/v1/emails', { from: 'a@acme.test', to: 'delivered@example.com', subject: 'S', text: body, html: `<p>${body}</p>` });
    // Force an internal error path and a validation error to be logged too.
    await stack.api.post('/v1/api-keys', { name: '', permissions: ['nope'] });

    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    const all = lines.join('\n');
    expect(all).not.toContain(secretKey);
    expect(all).not.toContain(stack.rootKey);
    // The hash is what the gateway sends the keys service to look a key up; the title promised it, nothing checked it.
    expect(all).not.toContain(hashApiKey(secretKey));
    expect(all).not.toContain(hashApiKey(stack.rootKey));
    expect(all).not.toContain(body);
    expect(all).not.toContain(webhook.body.secret);
  });
});

/**
 * Every credential of a running stack, each on the path that uses it: NATS user and password, an SMTP relay
 * that first refuses the password (its error path logged), DKIM keys that sign the mail, webhook secrets that
 * sign deliveries to a receiver that fails once with a body of its own, an attachment; the log is read at trace.
 */
describe('logs of a stack using every credential', () => {
  const lines: string[] = [];
  const natsPassword = 'NATS-PW-3b91e0c4';
  const relayPassword = 'RELAY-PW-5d27a8f1';
  const encryptionKey = randomBytes(32).toString('base64');
  let network: MailNetwork;
  let relay: TestSmtp;
  let receiver: WebhookReceiver;
  let stack: Stack;
  let db: Client;

  beforeAll(async () => {
    setLogDestination({ write: (line: string) => void lines.push(line) });
    network = await startMailNetwork();
    relay = await startTestSmtp({ auth: { user: 'mailroom', pass: relayPassword } });
    receiver = await new WebhookReceiver().start();
    stack = await startStack({
      natsAccess: { user: 'mailroom', pass: natsPassword },
      env: Object.assign({}, network.env, LOOPBACK_WEBHOOKS_ENV, {
        LOG_LEVEL: 'trace',
        ENCRYPTION_KEY: encryptionKey,
        DELIVERY_MODE: 'relay',
        SMTP_RELAY_URL: `smtp://mailroom:${relayPassword}@127.0.0.1:${relay.port}`,
        SMTP_RELAY_TLS_VERIFY: 'false',
      }),
    });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
    await receiver?.stop();
    await relay?.close();
    await network?.stop();
    setLogDestination(undefined);
  });

  it('never contain a password, signing secret, DKIM key, encryption key or message content', async () => {
    const domain = await verifiedDomainThrough(stack.api, network.dns, 'acme.test');
    const created = await stack.api.post('/v1/webhooks', { url: receiver.url(), events: ['*'] });
    expect(created.status).toBe(201);
    const rotated = await stack.api.post(`/v1/webhooks/${created.body.id}/secret/rotate`);
    expect(rotated.status).toBe(200);
    const receiverBody = 'RECEIVER-BODY-9c4e2a';
    // The first of the email's events fails once. Not simply the first request: the domain's domain.verified event
    // may reach the dispatcher only after the webhook exists (the domains outbox relays it on its own schedule), and
    // fan-out matches the webhooks there are then, so on a slow machine that event was the one answered 500, or was
    // answered 200 before this reply was set, and no email event ever failed.
    let failedOne = false;
    receiver.reply = (request) => {
      if (failedOne || !(JSON.parse(request.rawBody) as { type: string }).type.startsWith('email.')) return { status: 200 };
      failedOne = true;
      return { status: 500, body: receiverBody };
    };
    relay.failAuth(535, '5.7.8 Authentication credentials invalid');
    const body = 'BODY-2e8d4b-never-log-me';
    const attachment = 'ATTACHMENT-61f0c3-never-log-me';
    const sent = await stack.api.post('/v1/emails', {
      from: 'hi@acme.test',
      to: 'reader@one.test',
      subject: 'S',
      text: body,
      attachments: [{ filename: 'a.txt', content: Buffer.from(attachment).toString('base64') }],
    });
    expect(sent.status).toBe(202);
    const email = await emailReaching(stack, stack.rootKey, sent.body.id, ['sent']);
    expect(email.recipients[0]).toMatchObject({ status: 'sent', attempts: 2 });
    // The relay's refusal was met and retried, and the message went out signed with the domain's key.
    expect(relay.messages.map((message) => message.raw.toString('latin1'))).toEqual([expect.stringContaining('DKIM-Signature:')]);
    await eventually(async () => receiver.requests.length >= 2 || undefined, 15000).catch(async (error: Error) => {
      // Seen once in CI, not reproduced: say where the deliveries stood and what the stack warned of.
      const listed = await stack.api.get(`/v1/webhooks/${created.body.id}/deliveries`);
      const warnings = lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 40);
      throw new Error(`${error.message}: the receiver had ${receiver.requests.length} requests; deliveries ${JSON.stringify(listed.body)}; warnings logged: ${warnings.join('\n')}`);
    });
    // The receiver answers before the dispatcher records the attempt, so the failed one is polled for.
    const deliveries = await eventually(async () => {
      const listed = await stack.api.get(`/v1/webhooks/${created.body.id}/deliveries`);
      const attempts = listed.body.data.flatMap((delivery: { attemptLog: { responseCode: number | null }[] }) => delivery.attemptLog);
      return attempts.some((attempt: { responseCode: number | null }) => attempt.responseCode === 500) ? listed : undefined;
    }, 15000);
    // The receiver's own answer is no business of the attempt log: only its code is kept.
    expect(JSON.stringify(deliveries.body)).not.toContain(receiverBody);

    const { rows } = await db.query('SELECT dkim_private_key_sealed FROM domains.domains WHERE id = $1', [domain.id]);
    const pem = new SecretBox(encryptionKey).decrypt(rows[0].dkim_private_key_sealed, domain.id);
    const pemLines = pem.split('\n').filter((line) => line && !line.startsWith('-----'));
    expect(pemLines.length).toBeGreaterThan(10);
    const all = lines.join('\n');
    expect(lines.some((line) => line.includes('"level":10') || line.includes('"level":20'))).toBe(true);
    for (const secret of [natsPassword, relayPassword, encryptionKey, created.body.secret, rotated.body.secret, body, attachment, Buffer.from(attachment).toString('base64'), receiverBody, ...pemLines]) {
      expect(all).not.toContain(secret);
    }
  });
});
