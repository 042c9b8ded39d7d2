import { EVENT_STREAM, EventEnvelope } from '@mailroom/contracts';
import { eventually } from '@mailroom/testing';
import { connect, NatsConnection } from 'nats';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

const EMAILS = 30;

/**
 * The outbox holds events while NATS is down and the relay publishes them
 * after it returns; the stream drops a republished event by its Nats-Msg-Id.
 * Counted where a subscriber sees them: a fresh consumer on the stream.
 */
describe('email events across a NATS restart during delivery', () => {
  let harness: DeliveryHarness;

  beforeAll(async () => {
    // The DKIM key is cached for longer than the test, so delivery itself does not need NATS while it is down: the test is about the events.
    harness = await startDeliveryHarness({ SENDER_IDENTITY_CACHE_TTL: '10m' });
    routeMailTo(harness.dns, 'example.test');
    await verifiedDomain(harness, 'acme.test');
  });
  afterAll(() => harness?.stop());

  async function unpublished(emailIds: string[]): Promise<number> {
    const { rows } = await harness.db.query(`SELECT count(*)::int AS n FROM emails.outbox WHERE published_at IS NULL AND data->>'emailId' = ANY($1::text[])`, [emailIds]);
    return rows[0].n;
  }

  /** Every email.* event on the stream, read from the first message by a new ordered consumer. */
  async function eventsAtFreshConsumer(): Promise<EventEnvelope[]> {
    const connection: NatsConnection = await connect({ servers: harness.stack.nats.url });
    try {
      const consumer = await connection.jetstream().consumers.get(EVENT_STREAM, { filterSubjects: 'email.>' });
      const events: EventEnvelope[] = [];
      // In stream order, until the consumer reports nothing left behind the last message.
      let more = true;
      while (more) {
        more = false;
        for await (const message of await consumer.fetch({ max_messages: 500, expires: 2000 })) {
          events.push(message.json<EventEnvelope>());
          more = message.info.pending > 0;
        }
      }
      return events;
    } finally {
      await connection.close();
    }
  }

  it('delivers every email, and a fresh consumer sees exactly one email.queued and one email.delivered per email', async () => {
    const held = harness.smtp.holdNextData();
    const sent = await harness.stack.api.post('/v1/emails/batch', {
      emails: Array.from({ length: EMAILS }, (_, index) => ({ from: 'Acme <hi@acme.test>', to: `reader${index}@example.test`, subject: `Restart ${index}`, text: 'x' })),
    });
    expect(sent.status).toBe(202);
    const ids: string[] = sent.body.data.map((email: { id: string }) => email.id);
    expect(ids).toHaveLength(EMAILS);

    // NATS goes down while the first message waits for its DATA reply; that email (and any still in flight) is delivered while it is down.
    await held.arrived;
    await harness.stack.nats.stop();
    held.release();
    await eventually(async () => (await unpublished(ids)) > 0, 15000);

    await harness.stack.nats.restart();
    for (const id of ids) await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered'], 30000);
    await eventually(async () => (await unpublished(ids)) === 0, 30000);
    expect(harness.smtp.messages.filter((message) => message.rcptTo.some((address) => /^reader\d+@example\.test$/.test(address)))).toHaveLength(EMAILS);

    const events = (await eventsAtFreshConsumer()).filter((event) => ids.includes(event.data.emailId as string));
    const eventIds = events.map((event) => event.id);
    expect(new Set(eventIds).size).toBe(eventIds.length);
    for (const id of ids) {
      expect({ id, types: events.filter((event) => event.data.emailId === id).map((event) => event.type) }).toEqual({ id, types: ['email.queued', 'email.delivered'] });
    }
    // The consumer saw exactly the events the outbox holds: none lost, none made up.
    const { rows } = await harness.db.query(`SELECT id FROM emails.outbox WHERE data->>'emailId' = ANY($1::text[])`, [ids]);
    expect(eventIds.sort()).toEqual(rows.map((row: { id: string }) => row.id).sort());
  });
});
