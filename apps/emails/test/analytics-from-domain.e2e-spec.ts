import { connect } from 'nats';
import { ulid } from '@mailroom/database';
import { eventually, startStack, Stack } from '@mailroom/testing';

/**
 * Analytics counts an email under the from domain the emails table stores
 * (lower-case punycode), however its `from` was written: by a caller of the
 * API or by an internal service publishing onto the stream.
 */
describe('GET /v1/analytics?domain= for a from domain spelled several ways', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  async function sendFrom(key: string, from: string, to: string): Promise<string> {
    const response = await stack.api.withKey(key).post('/v1/emails', { from, to, subject: 'Spellings', text: 'hi' });
    expect(response.status).toBe(202);
    return response.body.id as string;
  }

  async function totalsOf(key: string, query: string, expected: (totals: Record<string, number>) => boolean) {
    return eventually(async () => {
      const response = await stack.api.withKey(key).get(`/v1/analytics?interval=hour&${query}`);
      expect(response.status).toBe(200);
      return expected(response.body.totals) ? (response.body.totals as Record<string, number>) : undefined;
    }, 20000);
  }

  it('counts every spelling of an IDN sender under its punycode name, and finds it by either name', async () => {
    const { key } = await stack.issueKey({ name: 'bücher', mode: 'test', domainRestrictions: ['xn--bcher-kva.de'] });
    const spellings = ['x@bücher.de', 'x@XN--BCHER-KVA.de', 'Ann <x@bücher.de>', 'x@BÜCHER.de'];
    const ids: string[] = [];
    for (const [index, from] of spellings.entries()) ids.push(await sendFrom(key, from, `delivered+${index}@example.com`));
    const api = stack.api.withKey(key);
    for (const id of ids) await eventually(async () => (await api.get(`/v1/emails/${id}`)).body.status === 'delivered', 20000);

    // A feedback-loop processor writes the sender its own way.
    const connection = await connect({ servers: stack.nats.url });
    const id = `evt_${ulid()}`;
    const complaint = {
      id,
      type: 'email.complained',
      createdAt: new Date().toISOString(),
      mode: 'test',
      data: { emailId: ids[0], from: 'X@Bücher.DE', recipient: 'delivered+0@example.com', feedback: 'abuse report' },
    };
    await connection.jetstream().publish('email.complained', JSON.stringify(complaint), { msgID: id });
    await connection.close();

    const punycode = await totalsOf(key, 'domain=xn--bcher-kva.de', (totals) => totals.delivered === 4 && totals.complained === 1);
    expect(punycode.sent).toBe(4);
    const unicode = await totalsOf(key, `domain=${encodeURIComponent('bücher.de')}`, () => true);
    expect(unicode).toEqual(punycode);
    // The key's own restriction reads the same counters when no domain is asked for.
    expect(await totalsOf(key, '', () => true)).toEqual(punycode);
  });

  it('counts a sender written with a comment after the address under its domain', async () => {
    const { key } = await stack.issueKey({ name: 'comment', mode: 'test', domainRestrictions: ['a.test'] });
    const id = await sendFrom(key, 'x@a.test (Ann)', 'delivered@example.com');
    await eventually(async () => (await stack.api.withKey(key).get(`/v1/emails/${id}`)).body.status === 'delivered', 20000);

    const totals = await totalsOf(key, 'domain=a.test', (counted) => counted.delivered === 1);
    expect(totals.sent).toBe(1);
  });

  it('counts a complaint that names only the email (as the README publishes one) under its domain and tags', async () => {
    const { key } = await stack.issueKey({ name: 'summary', mode: 'test', domainRestrictions: ['summary.test'] });
    const response = await stack.api.withKey(key).post('/v1/emails', { from: 'x@summary.test', to: 'delivered@example.com', subject: 'Tagged', text: 'hi', tags: ['welcome'] });
    const emailId = response.body.id as string;
    await eventually(async () => (await stack.api.withKey(key).get(`/v1/emails/${emailId}`)).body.status === 'delivered', 20000);

    const connection = await connect({ servers: stack.nats.url });
    const id = `evt_${ulid()}`;
    const data = { emailId, recipient: 'delivered@example.com', feedback: 'ARF report' };
    await connection.jetstream().publish('email.complained', JSON.stringify({ id, type: 'email.complained', createdAt: new Date().toISOString(), mode: 'test', data }), { msgID: id });
    await connection.close();

    // The complaint, published straight onto the stream, may be counted before the delivery the outbox relays.
    const counted = (totals: Record<string, number>) => totals.complained === 1 && totals.delivered === 1;
    expect((await totalsOf(key, 'domain=summary.test', counted)).sent).toBe(1);
    expect((await totalsOf(key, 'tags=welcome', counted)).sent).toBe(1);
  });
});
