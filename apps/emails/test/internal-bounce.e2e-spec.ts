import { EVENT_STREAM } from '@mailroom/contracts';
import { ensureEventStream } from '@mailroom/outbox';
import { eventually, Scrape, scrapeMetrics } from '@mailroom/testing';
import { ulid } from '@mailroom/database';
import { randomBytes } from 'node:crypto';
import { connect, JetStreamClient, NatsConnection } from 'nats';
import { DeliveryHarness, emailReaching, eventsOf, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

const CONSUMER = 'emails-bounces';

/**
 * A bounce reported after the receiving server accepted the message (a DSN a
 * bounce processor read off the return path), published onto the event
 * stream as the README tells internal services to. Live mail goes through a
 * real SMTP server, so an email is really delivered before it bounces.
 */
describe('an email.bounced event published by an internal service', () => {
  let harness: DeliveryHarness;
  let connection: NatsConnection;
  let jetstream: JetStreamClient;

  beforeAll(async () => {
    harness = await startDeliveryHarness();
    routeMailTo(harness.dns, 'example.test');
    await verifiedDomain(harness, 'acme.test');
    connection = await connect({ servers: harness.stack.nats.url });
    jetstream = connection.jetstream();
    // The consumer starts with the events published after it was created, in the background of the boot.
    const manager = await connection.jetstreamManager();
    await eventually(() => manager.consumers.info(EVENT_STREAM, CONSUMER).then(() => true), 15000);
  });
  afterAll(async () => {
    await connection?.close();
    await harness?.stop();
  });

  const deliveredEmail = async (to: string): Promise<string> => {
    const sent = await harness.stack.api.post('/v1/emails', { from: 'Acme <hi@acme.test>', to, subject: 'Hello', text: 'Hi there' });
    expect(sent.status).toBe(202);
    await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['delivered']);
    return sent.body.id;
  };

  /** Exactly what the README tells a bounce processor to publish; answers the event id and its stream sequence. */
  const publishBounce = async (data: Record<string, unknown>, mode = 'live', id = `evt_${ulid()}`) => {
    const envelope = { id, type: 'email.bounced', createdAt: new Date().toISOString(), mode, data };
    const ack = await jetstream.publish('email.bounced', JSON.stringify(envelope), { msgID: id });
    expect(ack.stream).toBe(EVENT_STREAM);
    return { id, seq: ack.seq, envelope };
  };

  const suppression = async (mode: string, address: string): Promise<{ reason: string; details: string } | undefined> =>
    (await harness.db.query('SELECT reason, details FROM emails.suppressions WHERE mode = $1 AND address = $2', [mode, address])).rows[0];

  /** The consumer handles events in stream order: once a later report is applied, every earlier one was handled. */
  const appliedAfter = async (marker: string) => {
    await publishBounce({ recipient: marker, smtp: { code: 550, reply: '550 marker' } });
    await eventually(() => suppression('live', marker), 15000);
  };

  it('bounces a delivered email, suppresses the address, and the next send to it is suppressed', async () => {
    const id = await deliveredEmail('late@example.test');
    await publishBounce({ emailId: id, recipient: 'Late <Late@Example.test>', smtp: { code: 550, reply: '550 5.1.1 <late@example.test>: user unknown' } });

    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['bounced']);
    expect(email.recipients).toEqual([
      expect.objectContaining({ address: 'late@example.test', status: 'bounced', attempts: 1, smtpCode: 550, smtpReply: '550 5.1.1 <late@example.test>: user unknown' }),
    ]);
    expect(await suppression('live', 'late@example.test')).toEqual({ reason: 'bounce', details: '550 5.1.1 <late@example.test>: user unknown' });
    // The reported event itself reaches webhooks and analytics; writing another would count the bounce twice.
    expect((await eventsOf(harness.db, id)).map((event) => event.type)).toEqual(['email.queued', 'email.delivered']);

    const next = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'late@example.test', subject: 'Again', text: 'hi' });
    expect(next.body.status).toBe('suppressed');
  });

  // The rule a bounce during delivery follows (README, Delivery): the mailbox is bad, or the address stays good.
  it.each([
    ['bounces but does not suppress on a full mailbox', 'full', { code: 552, reply: '552 5.2.2 <full@example.test>: mailbox full' }, false],
    ['bounces but does not suppress on a refusal as spam', 'spam', { code: 550, reply: '550 5.7.1 Message blocked as spam' }, false],
    ['bounces but does not suppress on a refusal of the content', 'content', { code: 554, reply: '554 5.6.0 Content rejected' }, false],
    ['bounces and suppresses on a mailbox status', 'unknown', { code: 550, reply: '550 5.1.1 <unknown@example.test>: user unknown' }, true],
    ['bounces and suppresses on a plain 550, as a refusal of the recipient itself', 'plain', { code: 550, reply: '550 user unknown' }, true],
  ])('%s', async (_title, local, smtp, suppresses) => {
    const address = `${local}@example.test`;
    const id = await deliveredEmail(address);
    await publishBounce({ emailId: id, recipient: address, smtp });

    // The recipient and the suppression list change in one transaction: the bounce shows, so the list is as it stays.
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['bounced']);
    expect(email.recipients).toEqual([expect.objectContaining({ address, status: 'bounced', smtpCode: smtp.code, smtpReply: smtp.reply })]);
    expect(await suppression('live', address)).toEqual(suppresses ? { reason: 'bounce', details: smtp.reply } : undefined);
  });

  it('suppresses on a report that gives no reply: the publisher says the address bounced and no more', async () => {
    const id = await deliveredEmail('no-reason@example.test');
    await publishBounce({ emailId: id, recipient: 'no-reason@example.test' });

    await emailReaching(harness.stack, harness.stack.rootKey, id, ['bounced']);
    expect(await suppression('live', 'no-reason@example.test')).toEqual({ reason: 'bounce', details: 'bounce reported' });
  });

  /** Once the worker has written its `attempts`th attempt at the email, and released its lease. */
  const attemptRecorded = (id: string, attempts: number) =>
    eventually(async () => (await harness.db.query('SELECT attempts FROM emails.emails WHERE id = $1 AND lease_owner IS NULL', [id])).rows[0]?.attempts === attempts, 15000);

  // The server said 250 but the worker had not written it yet: the report found the recipient still queued, was
  // marked applied and changed nothing, and the worker then wrote `delivered` over a bounce it never saw.
  it('bounces a recipient whose delivery is still in flight when the report arrives, and delivery does not undo it', async () => {
    const held = harness.smtp.holdNextData();
    const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'in-flight@example.test', subject: 'Hello', text: 'hi' });
    await held.arrived;
    const reply = '550 5.1.1 <in-flight@example.test>: user unknown';
    await publishBounce({ emailId: sent.body.id, recipient: 'in-flight@example.test', smtp: { code: 550, reply } });
    expect(await eventually(() => suppression('live', 'in-flight@example.test'), 15000)).toEqual({ reason: 'bounce', details: reply });
    held.release();
    await attemptRecorded(sent.body.id, 1);

    const email = (await harness.stack.api.get(`/v1/emails/${sent.body.id}`)).body;
    expect(email).toMatchObject({ status: 'bounced', recipients: [expect.objectContaining({ status: 'bounced', smtpCode: 550, smtpReply: reply })] });
    // The reported email.bounced is the one on the stream; delivery writes no delivered (or bounced) event after it.
    expect((await eventsOf(harness.db, sent.body.id)).map((event) => event.type)).toEqual(['email.queued']);
  });

  it('bounces a recipient waiting to be retried after a 4xx, and its retry writes no second bounce', async () => {
    const first = harness.smtp.holdNextData();
    const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'retried-dsn@example.test', subject: 'Hello', text: 'hi' });
    await first.arrived;
    const retry = harness.smtp.holdNextData();
    first.release({ code: 451, message: '4.3.0 try again later' });
    await retry.arrived;
    // Only smtp.reply: the recipient keeps the code its start gives.
    const reply = '550 5.1.1 <retried-dsn@example.test>: user unknown';
    await publishBounce({ emailId: sent.body.id, recipient: 'retried-dsn@example.test', smtp: { reply } });
    await eventually(() => suppression('live', 'retried-dsn@example.test'), 15000);
    retry.release({ code: 550, message: '5.1.1 no such user' });
    await attemptRecorded(sent.body.id, 2);

    const email = (await harness.stack.api.get(`/v1/emails/${sent.body.id}`)).body;
    expect(email).toMatchObject({ status: 'bounced', recipients: [expect.objectContaining({ status: 'bounced', smtpCode: 550, smtpReply: reply, nextAttemptAt: null })] });
    expect((await eventsOf(harness.db, sent.body.id)).map((event) => event.type)).toEqual(['email.queued', 'email.delivery_delayed']);
  });

  it('leaves the email delivered while another of its recipients was delivered', async () => {
    const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: ['kept@example.test', 'lost@example.test'], subject: 'Two', text: 'hi' });
    await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['delivered']);
    await publishBounce({ emailId: sent.body.id, recipient: 'lost@example.test' });
    await eventually(() => suppression('live', 'lost@example.test'), 15000);

    const email = (await harness.stack.api.get(`/v1/emails/${sent.body.id}`)).body;
    expect(email.status).toBe('delivered');
    const byAddress = Object.fromEntries(email.recipients.map((recipient: { address: string }) => [recipient.address, recipient]));
    expect(byAddress['lost@example.test']).toMatchObject({ status: 'bounced', smtpCode: null, smtpReply: 'bounce reported' });
    expect(byAddress['kept@example.test']).toMatchObject({ status: 'delivered', smtpCode: 250 });
  });

  it('does not apply a 4xx (delayed) DSN', async () => {
    const id = await deliveredEmail('delayed-dsn@example.test');
    await publishBounce({ emailId: id, recipient: 'delayed-dsn@example.test', smtp: { code: 451, reply: '451 4.4.1 still trying' } });
    await appliedAfter('after.delayed@example.test');

    expect(await suppression('live', 'delayed-dsn@example.test')).toBeUndefined();
    const email = (await harness.stack.api.get(`/v1/emails/${id}`)).body;
    expect(email).toMatchObject({ status: 'delivered', recipients: [expect.objectContaining({ status: 'delivered', smtpCode: 250 })] });
  });

  it('does not apply a report whose smtp is no object or whose reply is no string: read as no reply, it suppressed a full mailbox', async () => {
    const asText = await deliveredEmail('full-text@example.test');
    const asLines = await deliveredEmail('full-lines@example.test');
    await publishBounce({ emailId: asText, recipient: 'full-text@example.test', smtp: '552 5.2.2 mailbox full' });
    await publishBounce({ emailId: asLines, recipient: 'full-lines@example.test', smtp: { reply: ['552-5.2.2 mailbox full', '552 5.2.2 try again later'] } });
    await appliedAfter('after.shapes@example.test');

    for (const [id, address] of [
      [asText, 'full-text@example.test'],
      [asLines, 'full-lines@example.test'],
    ]) {
      expect(await suppression('live', address)).toBeUndefined();
      const email = (await harness.stack.api.get(`/v1/emails/${id}`)).body;
      expect(email).toMatchObject({ status: 'delivered', recipients: [expect.objectContaining({ status: 'delivered', smtpCode: 250 })] });
    }
  });

  it('acknowledges a bounce whose recipient is no address Mailroom could have sent to, rather than redelivering it for ever, and applies the next', async () => {
    // Longer than a btree entry can be (a third of a page): the suppression insert would fail every time.
    await publishBounce({ emailId: 'email_unknown', recipient: `${randomBytes(2400).toString('hex')}@example.test`, smtp: { code: 550 } });
    const { seq: last } = await publishBounce({ emailId: 'email_unknown', recipient: 'after.junk@example.test', smtp: { code: 550 } });

    // An unknown email still suppresses the address: a processor may know only the address.
    expect(await eventually(() => suppression('live', 'after.junk@example.test'), 15000)).toEqual({ reason: 'bounce', details: 'bounce reported' });
    const manager = await connection.jetstreamManager();
    await eventually(async () => {
      const info = await manager.consumers.info(EVENT_STREAM, CONSUMER);
      return info.delivered.stream_seq >= last && info.num_ack_pending === 0 && info.num_pending === 0;
    }, 15000);
  });

  it('counts the reports it drops, by why, so the service that published them can be told', async () => {
    const ignored = (scrape: Scrape, reason: string) =>
      scrape.find('mailroom_events_ignored_total', { consumer: CONSUMER, reason }).reduce((sum, sample) => sum + sample.value, 0);
    const before = await scrapeMetrics(harness.stack.opsUrl('emails'));
    // Not an event envelope at all, then an envelope whose report names no recipient, then one that applies.
    await jetstream.publish('email.bounced', 'not json');
    await publishBounce({ emailId: 'email_unknown', smtp: { code: 550 } });
    await appliedAfter('after.dropped@example.test');

    const after = await scrapeMetrics(harness.stack.opsUrl('emails'));
    expect({ notAnEnvelope: ignored(after, 'not_an_envelope') - ignored(before, 'not_an_envelope'), notApplicable: ignored(after, 'not_applicable') - ignored(before, 'not_applicable') }).toEqual({
      notAnEnvelope: 1,
      notApplicable: 1,
    });
  });

  it('applies an event id once: the same bounce again, after its address was taken off the list, does not put it back', async () => {
    const { envelope } = await publishBounce({ recipient: 'twice@example.test', smtp: { code: 550, reply: '550 gone' } });
    await eventually(() => suppression('live', 'twice@example.test'), 15000);
    expect((await harness.stack.api.delete('/v1/suppressions/twice@example.test')).status).toBe(200);

    // The publisher's retry past JetStream's two-minute duplicate window (no msgID here) is stored again.
    const again = (await jetstream.publish('email.bounced', JSON.stringify(envelope))).seq;
    const manager = await connection.jetstreamManager();
    await eventually(async () => {
      const info = await manager.consumers.info(EVENT_STREAM, CONSUMER);
      return info.delivered.stream_seq >= again && info.num_ack_pending === 0;
    }, 15000);
    expect(await suppression('live', 'twice@example.test')).toBeUndefined();
  });

  it("skips Mailroom's own bounce: one whose server refused the envelope sender suppresses nobody", async () => {
    harness.smtp.failSender(550, '5.7.1 Sender address rejected: not owned by user', 1);
    const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'refused@example.test', subject: 'Refused', text: 'hi' });
    await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['bounced']);
    await eventually(async () => {
      const { rows } = await harness.db.query(`SELECT published_at FROM emails.outbox WHERE type = 'email.bounced' AND data->>'emailId' = $1`, [sent.body.id]);
      return rows.length === 1 && rows[0].published_at !== null;
    }, 15000);
    const bounces = (await eventsOf(harness.db, sent.body.id)).filter((event) => event.type === 'email.bounced');
    expect(bounces.map((event) => [event.data.recipient, event.data.suppressed])).toEqual([['refused@example.test', false]]);

    await appliedAfter('after.refused@example.test');
    expect(await suppression('live', 'refused@example.test')).toBeUndefined();
  });

  it('applies a test-mode bounce to test data only', async () => {
    const id = await deliveredEmail('mixed@example.test');
    await publishBounce({ emailId: id, recipient: 'mixed@example.test', smtp: { code: 550, reply: '550 test only' } }, 'test');

    expect(await eventually(() => suppression('test', 'mixed@example.test'), 15000)).toEqual({ reason: 'bounce', details: '550 test only' });
    expect(await suppression('live', 'mixed@example.test')).toBeUndefined();
    const email = (await harness.stack.api.get(`/v1/emails/${id}`)).body;
    expect(email).toMatchObject({ status: 'delivered', recipients: [expect.objectContaining({ status: 'delivered', smtpCode: 250 })] });
  });

  it('stores a report published again with the same msgID within the duplicate window once, as the README says', async () => {
    const { id, seq, envelope } = await publishBounce({ recipient: 'retried@example.test', smtp: { code: 550, reply: '550 retried' } });
    const again = await jetstream.publish('email.bounced', JSON.stringify(envelope), { msgID: id });
    expect({ duplicate: again.duplicate, seq: again.seq }).toEqual({ duplicate: true, seq });
  });

  it('drops, and counts as no envelope, a complaint published on email.bounced: the subject and the type must agree', async () => {
    const ignored = async () =>
      (await scrapeMetrics(harness.stack.opsUrl('emails'))).find('mailroom_events_ignored_total', { consumer: CONSUMER, reason: 'not_an_envelope' }).reduce((sum, sample) => sum + sample.value, 0);
    const before = await ignored();
    const id = `evt_${ulid()}`;
    const complaint = { id, type: 'email.complained', createdAt: new Date().toISOString(), mode: 'live', data: { recipient: 'mislabelled@example.test' } };
    await jetstream.publish('email.bounced', JSON.stringify(complaint), { msgID: id });
    await appliedAfter('after.mislabelled@example.test');

    expect(await suppression('live', 'mislabelled@example.test')).toBeUndefined();
    expect((await ignored()) - before).toBe(1);
  });

  // Last: the stream every other test uses goes away.
  it('applies a bounce published onto a stream made anew before the consumer had set up its durable on it again', async () => {
    const manager = await connection.jetstreamManager();
    await manager.streams.delete(EVENT_STREAM);
    // As a relay or another consumer makes it again; the bounce consumer takes half a second before it subscribes again.
    await ensureEventStream(manager);
    const { seq } = await publishBounce({ recipient: 'after.loss@example.test', smtp: { code: 550, reply: '550 5.1.1 gone while the stream was new' } });

    const durable = await eventually(() => manager.consumers.info(EVENT_STREAM, CONSUMER).catch(() => undefined), 30000);
    // The case in question: the report was on the new stream before the durable was made again.
    const published = await manager.streams.getMessage(EVENT_STREAM, { seq });
    expect(Date.parse(durable.created)).toBeGreaterThan(published.time.getTime());
    expect(await eventually(() => suppression('live', 'after.loss@example.test'), 30000)).toEqual({
      reason: 'bounce',
      details: '550 5.1.1 gone while the stream was new',
    });
  });
});
