import { Client } from 'pg';
import { ApiClient, eventually, ProcessStack, Stack, startProcessStack, startStack } from '@mailroom/testing';
import { WebhookReceiver } from '../../webhook-dispatcher/test/support/webhook-receiver';
import { LOOPBACK_WEBHOOKS_ENV, MailNetwork, routeMailTo, startMailNetwork, verifiedDomainThrough } from './support/delivery-harness';
import { isCleanUnavailable, SendOutcome, SteadySender } from './support/steady-sender';

/** Sends accepted after the last fault, so the stack is seen to work normally again, not only to catch up. */
const AFTER_FAULTS = 50;
/** email.delivery_delayed comes from the 421 spell, so the webhook also sees events of emails a crash interrupted. */
const SUBSCRIBED = ['email.delivered', 'email.delivery_delayed'];
/** SIGKILLs of the emails process in `chaos`: each can leave a message out twice (same Message-ID), never more often. */
const EMAILS_CRASHES = 2;

/** The email id a message at the SMTP server carries in its Message-ID `<email_…@acme.test>`. */
const messageIdOf = (raw: Buffer) => /^Message-ID: <([^@>]+)@acme\.test>\r$/m.exec(raw.toString())?.[1] ?? 'no Message-ID';

/** Runs `check` on every item, a few at a time, so hundreds of GETs do not queue up on a small machine at once. */
async function everyOf<T>(items: T[], check: (item: T) => Promise<void>, width = 8): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: width }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await check(item);
  }));
}

/**
 * The whole stack as separate processes, one per app (npm start also splits emails in two), in mx mode, with a
 * webhook on email.delivered and email.delivery_delayed, while sends stream
 * in through the API: the dispatcher is SIGKILLed twice (once with a webhook
 * request in flight), the emails process twice (once with a delivery in
 * flight, once while the MX answers 421). Every accepted email is delivered
 * (once, or again with the same Message-ID after a crash), and each of its
 * events reaches the webhook, a repeated post under the same event id.
 */
describe('the whole stack under crashes and a deferring MX', () => {
  let network: MailNetwork;
  let stack: Stack;
  let processes: ProcessStack;
  let receiver: WebhookReceiver;
  let api: ApiClient;

  beforeAll(async () => {
    network = await startMailNetwork();
    routeMailTo(network.dns, 'example.test');
    // Only the database (migrated), a private NATS server and a root key: the apps run as processes below.
    stack = await startStack({ apps: [] });
    receiver = await new WebhookReceiver().start();
    processes = await startProcessStack(
      Object.assign({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: stack.databaseUrl, NATS_URL: stack.nats.url, RATE_LIMIT_PER_SECOND: '0' }, network.env, {
        // Enough retries to outlast the 421 spell; short waits and leases, so a crashed worker's claims come back within the test.
        DELIVERY_RETRY_SCHEDULE: '200ms,500ms,1s,1s,2s,2s,2s',
        DELIVERY_LEASE_MS: '3000',
        // The events a killed consumer (the dispatcher's, the emails service's analytics) had taken come back this soon.
        EVENT_ACK_WAIT_MS: '5000',
        // A send in flight when the emails process dies waits this long for its 503.
        RPC_TIMEOUT_MS: '10000',
      }, LOOPBACK_WEBHOOKS_ENV),
    );
    api = new ApiClient(processes.baseUrl, stack.rootKey);
    await verifiedDomainThrough(api, network.dns, 'acme.test');
    const webhook = await api.post('/v1/webhooks', { url: receiver.url(), events: SUBSCRIBED });
    if (webhook.status !== 201) throw new Error(`creating the webhook answered ${webhook.status}: ${JSON.stringify(webhook.body)}`);
  }, 180000);

  afterAll(async () => {
    await processes?.stop();
    await receiver?.stop();
    await stack?.stop();
    await network?.stop();
  });

  /** SIGKILL while the MX holds a DATA reply, then the reply 250: the message went out, the dead process never heard so. */
  async function crashEmailsMidDelivery(): Promise<void> {
    const held = network.smtp.holdNextData();
    let arrived = false;
    void held.arrived.then(() => (arrived = true));
    await eventually(() => arrived, 20000);
    await processes.kill('emails');
    held.release();
    await processes.start('emails');
  }

  /** SIGKILL while the endpoint holds a webhook request open, then it answers 200 to nobody. */
  async function crashDispatcherMidRequest(): Promise<void> {
    const heldIndex = receiver.requests.length;
    receiver.reply = (_, index) => (index === heldIndex ? 'hold' : { status: 200 });
    await eventually(() => receiver.requests.length > heldIndex, 20000);
    await processes.kill('webhook-dispatcher');
    receiver.release();
    await processes.start('webhook-dispatcher');
  }

  /**
   * The faults, each once the stream has reached a point. The dispatcher goes first: events it had taken from the
   * stream and not stored come back only after the consumer's 30 s ack wait, which then runs while the rest goes on.
   * The emails process dies twice, the second time while the MX answers 421. The stream goes on until the last fault
   * is behind it.
   */
  async function chaos(sender: SteadySender): Promise<void> {
    const reached = (accepted: number) => eventually(() => sender.acceptedCount >= accepted, 30000);
    await eventually(() => sender.acceptedCount >= 20 && receiver.requests.length >= 5, 30000);
    await processes.kill('webhook-dispatcher');
    await processes.start('webhook-dispatcher');
    await reached(50);
    await crashDispatcherMidRequest();
    await reached(80);
    await crashEmailsMidDelivery();
    await reached(110);
    network.smtp.failNext(421, '4.3.2 Try again later', 40);
    await reached(130);
    await processes.kill('emails');
    await processes.start('emails');
    await reached(sender.acceptedCount + AFTER_FAULTS);
    sender.stop();
  }

  it('delivers every accepted email at SMTP under one Message-ID, shows it delivered, and posts every event of it to the webhook under one event id', async () => {
    // A keyed send keeps trying for 90 s: a SIGKILLed emails process is back within 3 s on a quiet machine, but on a
    // loaded CI machine (ten times slower) keyed sends were still refused 30 s later.
    const sender = new SteadySender(api, { from: 'Acme <hi@acme.test>', recipientPrefix: 'chaos', domain: 'example.test', intervalMs: 30, keyedRetryMs: 90000, retryIntervalMs: 100 });
    await Promise.all([sender.run(), chaos(sender)]);

    const accepted = sender.outcomes.filter((outcome): outcome is SendOutcome & { id: string } => outcome.id !== undefined);
    const refusals = sender.outcomes.flatMap((outcome) => outcome.refusals);
    // Keyed sends were sent again until accepted; unkeyed ones refused with a 503 may or may not have been stored.
    expect({ unclean: refusals.filter((refusal) => !isCleanUnavailable(refusal)), keyedLost: sender.outcomes.filter((o) => o.keyed && !o.id).length }).toEqual({ unclean: [], keyedLost: 0 });
    expect(accepted.length).toBeGreaterThanOrEqual(sender.outcomes.length / 2);

    const atSmtp = () => new Set(network.smtp.messages.map((message) => messageIdOf(message.raw)));
    await eventually(() => accepted.every((outcome) => atSmtp().has(outcome.id)), 45000, 200).catch((error: Error) => {
      const missing = accepted.filter((outcome) => !atSmtp().has(outcome.id)).map((outcome) => outcome.id);
      throw new Error(`${error.message}: ${missing.length} accepted emails not at SMTP, e.g. ${missing.slice(0, 5).join(', ')}`);
    });

    // Per recipient (one per send), the email ids that reached it, and how often.
    const received = new Map<string, Map<string, number>>();
    for (const message of network.smtp.messages) {
      for (const recipient of message.rcptTo) {
        const ids = received.get(recipient) ?? new Map<string, number>();
        ids.set(messageIdOf(message.raw), (ids.get(messageIdOf(message.raw)) ?? 0) + 1);
        received.set(recipient, ids);
      }
    }
    const wrong = sender.outcomes.flatMap((outcome) => {
      const ids = received.get(outcome.recipient) ?? new Map<string, number>();
      const copies = [...ids.values()].reduce((sum, count) => sum + count, 0);
      // Accepted: its own id only, once, or again after each crash. Refused (503, no key): nothing, or one email stored before the answer was lost.
      const fine = outcome.id ? ids.size === 1 && ids.has(outcome.id) && copies <= 1 + EMAILS_CRASHES : ids.size <= 1 && copies <= 1 + EMAILS_CRASHES;
      return fine ? [] : [{ recipient: outcome.recipient, id: outcome.id, received: Object.fromEntries(ids) }];
    });
    expect(wrong).toEqual([]);
    const strangers = [...received.keys()].filter((recipient) => !sender.outcomes.some((outcome) => outcome.recipient === recipient));
    expect(strangers).toEqual([]);

    await everyOf(accepted, async ({ id }) => {
      const status = await eventually(async () => {
        const response = await api.get(`/v1/emails/${id}`);
        return response.body?.status === 'delivered' && response.body.status;
      }, 20000).catch(async () => (await api.get(`/v1/emails/${id}`)).body);
      expect({ id, status }).toEqual({ id, status: 'delivered' });
    });

    type Posted = { eventId: string; type: string; emailId: string };
    const posted = (): Posted[] =>
      receiver.requests.map((request) => {
        const body = JSON.parse(request.rawBody);
        return { eventId: String(request.headers['service-event-id']), type: body.type, emailId: body.data?.emailId };
      });
    const notPosted = () => {
      const emailIds = new Set(posted().map((event) => event.emailId));
      return accepted.filter((outcome) => !emailIds.has(outcome.id)).map((outcome) => outcome.id);
    };
    // An event a killed dispatcher had taken from the stream but not stored comes back after EVENT_ACK_WAIT_MS.
    await eventually(() => notPosted().length === 0, 30000, 200).catch((error: Error) => {
      throw new Error(`${error.message}: no email.delivered webhook for ${notPosted().length} emails, e.g. ${notPosted().slice(0, 5).join(', ')}`);
    });
    const db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    try {
      // Every event the emails service emitted of the subscribed kinds (its outbox keeps them a day) reached the webhook.
      const outbox = (await db.query(`SELECT id, type FROM emails.outbox WHERE type = ANY($1::text[])`, [SUBSCRIBED])).rows as Array<{ id: string; type: string }>;
      // The 421 spell did defer mail, so delayed events are among them.
      expect(outbox.some((event) => event.type === 'email.delivery_delayed')).toBe(true);
      const unposted = () => {
        const postedIds = new Set(posted().map((event) => event.eventId));
        return outbox.filter((event) => !postedIds.has(event.id));
      };
      await eventually(() => unposted().length === 0, 30000, 200).catch((error: Error) => {
        throw new Error(`${error.message}: ${unposted().length} events not posted, e.g. ${JSON.stringify(unposted().slice(0, 5))}`);
      });

      // A webhook post sent again (the dispatcher died before it heard the answer) is the first one again: same event id, same body.
      const bodiesByEventId = new Map<string, Set<string>>();
      for (const request of receiver.requests) {
        const eventId = String(request.headers['service-event-id']);
        bodiesByEventId.set(eventId, (bodiesByEventId.get(eventId) ?? new Set()).add(request.rawBody));
      }
      const deliveredEventIds = new Map<string, Set<string>>();
      for (const event of posted().filter((each) => each.type === 'email.delivered')) {
        deliveredEventIds.set(event.emailId, (deliveredEventIds.get(event.emailId) ?? new Set()).add(event.eventId));
      }
      expect({
        types: [...new Set(posted().map((event) => event.type))].filter((type) => !SUBSCRIBED.includes(type)),
        changedBodies: [...bodiesByEventId].filter(([, bodies]) => bodies.size > 1).map(([eventId]) => eventId),
        splitDelivered: [...deliveredEventIds].filter(([, eventIds]) => eventIds.size > 1).map(([emailId, eventIds]) => ({ emailId, eventIds: [...eventIds] })),
      }).toEqual({ types: [], changedBodies: [], splitDelivered: [] });

      // The dispatcher's own account agrees: one delivery per event posted, each succeeded, none left pending after the crashes.
      const deliveries = async () => (await db.query(`SELECT event_id, status FROM webhooks.deliveries`)).rows as Array<{ event_id: string; status: string }>;
      const unfinished = await eventually(async () => (await deliveries()).every((row) => row.status === 'succeeded') || undefined, 20000).then(
        () => [],
        async () => (await deliveries()).filter((row) => row.status !== 'succeeded'),
      );
      expect(unfinished).toEqual([]);
      expect((await deliveries()).map((row) => row.event_id).sort()).toEqual([...bodiesByEventId.keys()].sort());
    } finally {
      await db.end();
    }
  }, 300000);
});
