import { EVENT_STREAM } from '@mailroom/contracts';
import { eventually, startStack, Stack } from '@mailroom/testing';
import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import { ulid } from '@mailroom/database';
import { queryDatabase } from './emails-api-fixtures';
import { emailReaching } from './support/delivery-harness';

describe('an email.complained event published by an internal service', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  it('suppresses the address, and the next send to it is suppressed', async () => {
    const { key } = await stack.issueKey({ name: 'fbl', mode: 'test' });
    const api = stack.api.withKey(key);
    const sent = await api.post('/v1/emails', { from: 'hello@acme.test', to: 'reader@example.com', subject: 'Hi', text: 'hi' });
    expect(sent.status).toBeLessThan(300);
    // A reader complains of mail that reached them.
    await emailReaching(stack, key, sent.body.id, ['delivered']);

    // Exactly what the README tells internal services to do.
    const connection = await connect({ servers: stack.nats.url });
    const jetstream = connection.jetstream();
    const id = `evt_${ulid()}`;
    const envelope = {
      id,
      type: 'email.complained',
      createdAt: new Date().toISOString(),
      mode: 'test',
      data: { emailId: sent.body.id, recipient: 'Reader@Example.com', feedback: 'abuse report from FBL' },
    };
    const ack = await jetstream.publish('email.complained', JSON.stringify(envelope), { msgID: id });
    expect(ack.stream).toBe(EVENT_STREAM);
    await connection.close();

    const suppression = await eventually(async () => {
      const list = await api.get('/v1/suppressions');
      return list.body.data?.find((entry: { email?: string; address?: string }) => (entry.email ?? entry.address) === 'reader@example.com');
    }, 15000);
    expect(suppression).toMatchObject({ reason: 'complaint', details: 'abuse report from FBL' });
    const complained = (await api.get(`/v1/emails/${sent.body.id}`)).body;
    expect(Date.parse(complained.complainedAt)).toBeGreaterThanOrEqual(Date.parse(complained.createdAt));

    const next = await api.post('/v1/emails', { from: 'hello@acme.test', to: 'reader@example.com', subject: 'Again', text: 'hi' });
    expect(next.body.status).toBe('suppressed');
    expect((await api.get(`/v1/emails/${next.body.id}`)).body.complainedAt).toBeNull();

    // Live data is untouched: the complaint was a test-mode event.
    const live = await stack.api.get('/v1/suppressions');
    expect(live.body.data.some((entry: { email?: string; address?: string }) => (entry.email ?? entry.address) === 'reader@example.com')).toBe(false);
  });

  it('acknowledges a complaint whose recipient is no address Mailroom could have sent to, rather than redelivering it for ever, and applies the next', async () => {
    const { key } = await stack.issueKey({ name: 'fbl-junk', mode: 'test' });
    const api = stack.api.withKey(key);
    const connection = await connect({ servers: stack.nats.url });
    const jetstream = connection.jetstream();
    const publish = async (recipient: string) => {
      const id = `evt_${ulid()}`;
      const envelope = { id, type: 'email.complained', createdAt: new Date().toISOString(), mode: 'test', data: { emailId: 'email_unknown', recipient } };
      return (await jetstream.publish('email.complained', JSON.stringify(envelope), { msgID: id })).seq;
    };
    // Longer than a btree entry can be (a third of a page): the suppression insert fails every time.
    await publish(`${randomBytes(2400).toString('hex')}@example.com`);
    const last = await publish('after.junk@example.com');

    await eventually(async () => (await api.get('/v1/suppressions')).body.data?.some((entry: { email: string }) => entry.email === 'after.junk@example.com'), 15000);
    const manager = await connection.jetstreamManager();
    await eventually(async () => {
      const info = await manager.consumers.info(EVENT_STREAM, 'emails-complaints');
      return info.delivered.stream_seq >= last && info.num_ack_pending === 0 && info.num_pending === 0;
    }, 15000);
    await connection.close();
  });

  it("marks only an email of the event's own mode: a live complaint naming a test email suppresses the live address and leaves the test email alone", async () => {
    const { key } = await stack.issueKey({ name: 'fbl-modes', mode: 'test' });
    const sent = await stack.api.withKey(key).post('/v1/emails', { from: 'hello@acme.test', to: 'modes@example.com', subject: 'Hi', text: 'hi' });
    expect(sent.status).toBeLessThan(300);
    // Delivered, so only the mode keeps the complaint from marking it.
    await emailReaching(stack, key, sent.body.id, ['delivered']);
    const connection = await connect({ servers: stack.nats.url });
    const id = `evt_${ulid()}`;
    const envelope = { id, type: 'email.complained', createdAt: new Date().toISOString(), mode: 'live', data: { emailId: sent.body.id, recipient: 'modes@example.com' } };
    await connection.jetstream().publish('email.complained', JSON.stringify(envelope), { msgID: id });
    await connection.close();

    await eventually(async () => (await stack.api.get('/v1/suppressions?limit=100')).body.data.some((entry: { email: string }) => entry.email === 'modes@example.com'), 15000);
    const marked = await queryDatabase(
      stack.databaseUrl,
      `SELECT (SELECT complained_at FROM emails.emails WHERE id = $1) AS email, (SELECT complained_at FROM emails.recipients WHERE email_id = $1) AS recipient`,
      [sent.body.id],
    );
    expect(marked).toEqual([{ email: null, recipient: null }]);
    expect((await stack.api.withKey(key).get(`/v1/emails/${sent.body.id}`)).body.complainedAt).toBeNull();
  });

  it("marks an email only for a complaint from one of its recipients, however the publisher spells the address", async () => {
    const { key } = await stack.issueKey({ name: 'fbl-stranger', mode: 'test' });
    const api = stack.api.withKey(key);
    const sent = await api.post('/v1/emails', { from: 'hello@acme.test', to: 'Ann <ann@bücher.test>', subject: 'Hi', text: 'hi' });
    expect(sent.status).toBeLessThan(300);
    await emailReaching(stack, key, sent.body.id, ['delivered']);
    const connection = await connect({ servers: stack.nats.url });
    const publish = async (recipient: string) => {
      const id = `evt_${ulid()}`;
      const envelope = { id, type: 'email.complained', createdAt: new Date().toISOString(), mode: 'test', data: { emailId: sent.body.id, recipient } };
      await connection.jetstream().publish('email.complained', JSON.stringify(envelope), { msgID: id });
    };
    const listed = async (address: string) =>
      (await api.get('/v1/suppressions?limit=100')).body.data.some((entry: { email: string }) => entry.email === address);

    // Someone the email never went to: their address is listed, the email is not theirs to complain of.
    await publish('stranger@example.com');
    await eventually(() => listed('stranger@example.com'), 15000);
    expect((await api.get(`/v1/emails/${sent.body.id}`)).body.complainedAt).toBeNull();

    // Its recipient, in other spellings of the same address.
    await publish('"Ann" <ANN@XN--BCHER-KVA.test>');
    await eventually(async () => typeof (await api.get(`/v1/emails/${sent.body.id}`)).body.complainedAt === 'string', 15000);
    await connection.close();
    const [marked] = await queryDatabase(stack.databaseUrl, 'SELECT complained_at IS NOT NULL AS marked FROM emails.recipients WHERE email_id = $1', [sent.body.id]);
    expect(marked).toEqual({ marked: true });
  });

  it('marks no email for a complaint from a recipient it never went to: one suppressed at acceptance, or one of an email still scheduled', async () => {
    const { key } = await stack.issueKey({ name: 'fbl-never-sent', mode: 'test' });
    const api = stack.api.withKey(key);
    expect((await api.post('/v1/suppressions', { email: 'listed@example.com' })).status).toBe(201);
    const partly = await api.post('/v1/emails', { from: 'hello@acme.test', to: ['kept@example.com', 'listed@example.com'], subject: 'Hi', text: 'hi' });
    const scheduledAt = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    const later = await api.post('/v1/emails', { from: 'hello@acme.test', to: 'later@example.com', subject: 'Hi', text: 'hi', scheduledAt });
    expect([partly.status, later.status]).toEqual([202, 202]);
    expect((await api.get(`/v1/emails/${partly.body.id}`)).body.recipients).toContainEqual(expect.objectContaining({ address: 'listed@example.com', status: 'suppressed' }));

    const connection = await connect({ servers: stack.nats.url });
    for (const [emailId, recipient] of [
      [partly.body.id, 'listed@example.com'],
      [later.body.id, 'later@example.com'],
    ]) {
      const id = `evt_${ulid()}`;
      const envelope = { id, type: 'email.complained', createdAt: new Date().toISOString(), mode: 'test', data: { emailId, recipient } };
      await connection.jetstream().publish('email.complained', JSON.stringify(envelope), { msgID: id });
    }
    await connection.close();
    // Each complaint's suppression is written in the transaction that would have marked its email.
    const reasonOf = async (address: string) =>
      (await api.get('/v1/suppressions?limit=100')).body.data.find((entry: { email: string }) => entry.email === address)?.reason;
    await eventually(async () => (await reasonOf('listed@example.com')) === 'complaint' && (await reasonOf('later@example.com')) === 'complaint', 15000);
    for (const id of [partly.body.id, later.body.id]) expect((await api.get(`/v1/emails/${id}`)).body.complainedAt).toBeNull();
    const marked = await queryDatabase(stack.databaseUrl, 'SELECT count(*)::int AS n FROM emails.recipients WHERE email_id = ANY($1) AND complained_at IS NOT NULL', [
      [partly.body.id, later.body.id],
    ]);
    expect(marked).toEqual([{ n: 0 }]);
  });

  it('lists the address with its feedback, over an entry already there, and reads the one address of `to` when `recipient` is left out', async () => {
    const { key } = await stack.issueKey({ name: 'fbl-details', mode: 'test' });
    const api = stack.api.withKey(key);
    expect((await api.post('/v1/suppressions', { email: 'listed.before@example.com', reason: 'unsubscribe', details: 'footer link' })).status).toBe(201);
    const connection = await connect({ servers: stack.nats.url });
    const publish = async (data: Record<string, unknown>) => {
      const id = `evt_${ulid()}`;
      const envelope = { id, type: 'email.complained', createdAt: new Date().toISOString(), mode: 'test', data };
      await connection.jetstream().publish('email.complained', JSON.stringify(envelope), { msgID: id });
    };
    await publish({ recipient: 'listed.before@example.com', feedback: `ARF ${'x'.repeat(600)}` });
    await publish({ to: ['Summary Only <Summary.Only@example.com>'] });
    await connection.close();

    const entry = async (address: string) => (await api.get('/v1/suppressions?limit=100')).body.data.find((item: { email: string }) => item.email === address);
    const summaryOnly = await eventually(() => entry('summary.only@example.com'), 15000);
    expect(summaryOnly).toMatchObject({ reason: 'complaint', details: 'complaint reported' });
    expect(await eventually(async () => ((await entry('listed.before@example.com'))?.reason === 'complaint' ? entry('listed.before@example.com') : undefined), 15000)).toMatchObject({
      details: `ARF ${'x'.repeat(496)}`,
    });
  });

  it('applies an event id once: the same complaint again, after its address was taken off the list, does not put it back', async () => {
    const { key } = await stack.issueKey({ name: 'fbl-twice', mode: 'test' });
    const api = stack.api.withKey(key);
    const listed = async () =>
      (await api.get('/v1/suppressions?limit=100')).body.data.some((entry: { email: string }) => entry.email === 'twice@example.com');
    const connection = await connect({ servers: stack.nats.url });
    const jetstream = connection.jetstream();
    const id = `evt_${ulid()}`;
    const envelope = JSON.stringify({
      id,
      type: 'email.complained',
      createdAt: new Date().toISOString(),
      mode: 'test',
      data: { emailId: 'email_unknown', recipient: 'twice@example.com' },
    });
    await jetstream.publish('email.complained', envelope, { msgID: id });
    await eventually(listed, 15000);
    expect((await api.delete('/v1/suppressions/twice@example.com')).status).toBe(200);

    // The publisher's retry past JetStream's two-minute duplicate window (no msgID here) is stored again.
    const again = (await jetstream.publish('email.complained', envelope)).seq;
    const manager = await connection.jetstreamManager();
    await eventually(async () => {
      const info = await manager.consumers.info(EVENT_STREAM, 'emails-complaints');
      return info.delivered.stream_seq >= again && info.num_ack_pending === 0;
    }, 15000);
    await connection.close();
    expect(await listed()).toBe(false);
  });
});
