import { Client } from 'pg';
import { ApiClient, eventually } from '@mailroom/testing';
import { WebhookReceiver } from '../../webhook-dispatcher/test/support/webhook-receiver';
import { DeliveryHarness, LOOPBACK_WEBHOOKS_ENV, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';
import { isCleanUnavailable, SendOutcome, SteadySender } from './support/steady-sender';

/** How long connections keep being killed, and how often every backend of the database is terminated meanwhile. */
const KILLING_MS = 8000;
const KILL_EVERY_MS = 30;

/** The email id a message at the SMTP server carries in its Message-ID `<email_…@acme.test>`. */
const messageIdOf = (raw: Buffer) => /^Message-ID: <([^@>]+)@acme\.test>\r$/m.exec(raw.toString())?.[1] ?? 'no Message-ID';

/**
 * Terminates every backend of the database but `spare` every `everyMs`, as a DBA's pg_terminate_backend sweep, a
 * pooler restart or a flapping failover does, without refusing new connections: the apps reconnect at once and
 * lose them again. Counts the backends it terminated.
 */
class ConnectionKiller {
  terminated = 0;
  private running = true;
  private readonly admin: Client;
  private readonly database: string;

  constructor(databaseUrl: string, private readonly spare: number[]) {
    this.database = new URL(databaseUrl).pathname.slice(1);
    this.admin = new Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
  }

  async run(forMs: number, everyMs: number): Promise<void> {
    await this.admin.connect();
    try {
      for (const until = Date.now() + forMs; this.running && Date.now() < until; ) {
        const { rows } = await this.admin.query(
          'SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE datname = $1 AND NOT (pid = ANY($2::int[])) AND pid <> pg_backend_pid()',
          [this.database, this.spare],
        );
        this.terminated += rows.filter((row) => row.killed).length;
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    } finally {
      await this.admin.end();
    }
  }
}

/**
 * Uses the API one request at a time while connections are killed: reads an accepted email, the email list, the
 * domains and the keys; creates a key, adds a suppression, patches the domain. Every answer that is neither 2xx
 * nor a clean 503 is kept.
 */
async function useWhile(api: ApiClient, sender: SteadySender, domainId: string, busy: () => boolean): Promise<{ requests: number; unclean: string[] }> {
  const unclean: string[] = [];
  let requests = 0;
  for (let n = 0; busy(); n++) {
    const accepted = sender.outcomes.filter((outcome) => outcome.id);
    const uses: Array<[string, string, unknown?]> = [
      ['GET', '/v1/emails?limit=5'],
      ['GET', '/v1/domains'],
      ['GET', '/v1/api-keys'],
      ['GET', accepted.length ? `/v1/emails/${accepted[n % accepted.length].id}` : '/v1/emails?limit=1'],
      ['POST', '/v1/api-keys', { name: `killed ${n}`, permissions: ['emails:read'] }],
      ['POST', '/v1/suppressions', { email: `suppressed${n}@elsewhere.test` }],
      ['PATCH', `/v1/domains/${domainId}`, {}],
    ];
    const [method, path, body] = uses[n % uses.length];
    const answer = await api.request(method, path, { body }).then(
      (response) => `${response.status} ${response.body?.error?.code ?? ''}`.trim(),
      (error: Error & { cause?: { code?: string } }) => `fetch failed: ${error.cause?.code ?? error.message}`,
    );
    requests++;
    if (!/^2\d\d$/.test(answer) && !isCleanUnavailable(answer)) unclean.push(`${method} ${path}: ${answer}`);
  }
  return { requests, unclean };
}

/**
 * Every Postgres backend of the stack's database is terminated again and again while sends and reads go on
 * through the API. Answers are 2xx or 503 service_unavailable, never 500; every accepted email goes out once and
 * its email.delivered event reaches a webhook; and once the killing stops the apps work again without a restart.
 */
describe('the stack while its database connections are killed', () => {
  let harness: DeliveryHarness;
  let receiver: WebhookReceiver;
  let domainId: string;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    // Short leases: an email or a webhook delivery claimed on a connection that died comes back soon.
    harness = await startDeliveryHarness(Object.assign({ DELIVERY_LEASE_MS: '3000', DELIVERY_RETRY_SCHEDULE: '200ms,500ms,1s,1s,2s', RPC_TIMEOUT_MS: '10000' }, LOOPBACK_WEBHOOKS_ENV));
    routeMailTo(harness.dns, 'example.test');
    domainId = (await verifiedDomain(harness, 'acme.test')).id;
    const webhook = await harness.stack.api.post('/v1/webhooks', { url: receiver.url(), events: ['email.delivered'] });
    if (webhook.status !== 201) throw new Error(`creating the webhook answered ${webhook.status}: ${JSON.stringify(webhook.body)}`);
  }, 60000);

  afterAll(async () => {
    await harness?.stop();
    await receiver?.stop();
  });

  it('answers 2xx or a clean 503, delivers every accepted email once, and recovers without a restart', async () => {
    const { api } = harness.stack;
    const sender = new SteadySender(api, { from: 'Acme <hi@acme.test>', recipientPrefix: 'killed', domain: 'example.test', intervalMs: 40, keyedRetryMs: 30000, retryIntervalMs: 100 });
    const { rows: [own] } = await harness.db.query('SELECT pg_backend_pid() AS pid');
    const killer = new ConnectionKiller(harness.stack.databaseUrl, [own.pid]);
    let killing = true;
    const [, , using] = await Promise.all([
      sender.run(),
      killer.run(KILLING_MS, KILL_EVERY_MS).finally(() => {
        killing = false;
        sender.stop();
      }),
      useWhile(api, sender, domainId, () => killing),
    ]);

    expect(killer.terminated).toBeGreaterThan(20);
    const refusals = sender.outcomes.flatMap((outcome) => outcome.refusals);
    expect({ unclean: [...refusals.filter((refusal) => !isCleanUnavailable(refusal)), ...using.unclean], keyedLost: sender.outcomes.filter((o) => o.keyed && !o.id).length }).toEqual({
      unclean: [],
      keyedLost: 0,
    });
    expect(using.requests).toBeGreaterThan(10);

    // Recovered: a send now is accepted at once and every accepted email goes out.
    const after = await api.post('/v1/emails', { from: 'hi@acme.test', to: 'after@example.test', subject: 'After', text: 'x' });
    expect(after.status).toBe(202);
    const accepted = [...sender.outcomes.filter((outcome): outcome is SendOutcome & { id: string } => outcome.id !== undefined), { recipient: 'after@example.test', id: String(after.body.id) }];
    const atSmtp = () => new Set(harness.smtp.messages.map((message) => messageIdOf(message.raw)));
    await eventually(() => accepted.every((outcome) => atSmtp().has(outcome.id)), 30000, 200).catch((error: Error) => {
      const missing = accepted.filter((outcome) => !atSmtp().has(outcome.id)).map((outcome) => outcome.id);
      throw new Error(`${error.message}: ${missing.length} of ${accepted.length} accepted emails not at SMTP, e.g. ${missing.slice(0, 5).join(', ')}`);
    });

    // Once each: no crash here, so no message may go out twice; a refused send (503, no key) at most once.
    const wrong = [...sender.outcomes, { recipient: 'after@example.test', id: String(after.body.id) }].flatMap((outcome) => {
      const ids = harness.smtp.messagesFor(outcome.recipient).map((message) => messageIdOf(message.raw));
      const fine = outcome.id ? ids.length === 1 && ids[0] === outcome.id : ids.length <= 1;
      return fine ? [] : [{ recipient: outcome.recipient, id: outcome.id, received: ids }];
    });
    expect(wrong).toEqual([]);

    const statuses = await eventually(async () => {
      const list = await Promise.all(accepted.map(async ({ id }) => (await api.get(`/v1/emails/${id}`)).body?.status));
      return list.every((status) => status === 'delivered') && list;
    }, 20000).catch(async () => Promise.all(accepted.map(async ({ id }) => `${id}: ${(await api.get(`/v1/emails/${id}`)).body?.status}`)));
    expect(new Set(statuses)).toEqual(new Set(['delivered']));
    expect((await api.get('/health', { key: null })).status).toBe(200);

    const posted = () => new Set(receiver.requests.map((request) => JSON.parse(request.rawBody).data?.emailId));
    await eventually(() => accepted.every((outcome) => posted().has(outcome.id)), 30000, 200).catch((error: Error) => {
      const missing = accepted.filter((outcome) => !posted().has(outcome.id)).map((outcome) => outcome.id);
      throw new Error(`${error.message}: no email.delivered webhook for ${missing.length} emails, e.g. ${missing.slice(0, 5).join(', ')}`);
    });
  }, 90000);
});
