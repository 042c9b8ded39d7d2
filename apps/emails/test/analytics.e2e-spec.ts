import { EVENT_STREAM } from '@mailroom/contracts';
import { eventually, startStack, Stack } from '@mailroom/testing';
import { connect } from 'nats';
import { ANALYTICS_CONSUMER } from '../src/analytics/analytics-projector';
import { queryDatabase } from './emails-api-fixtures';

describe('GET /v1/analytics', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  async function send(key: string, to: string | string[], tags: string[] = []) {
    const response = await stack.api.withKey(key).post('/v1/emails', {
      from: 'Acme <hello@acme.test>',
      to,
      subject: 'Analytics',
      text: 'hi',
      tags,
    });
    expect(response.status).toBeLessThan(300);
    return response.body.id as string;
  }

  /** Once every event written is published and the analytics consumer has acknowledged it. */
  async function everyEventCounted() {
    const connection = await connect({ servers: stack.nats.url });
    try {
      const manager = await connection.jetstreamManager();
      await eventually(async () => {
        const [outbox] = await queryDatabase<{ waiting: number }>(stack.databaseUrl, 'SELECT count(*)::int AS waiting FROM emails.outbox WHERE published_at IS NULL');
        const consumer = await manager.consumers.info(EVENT_STREAM, ANALYTICS_CONSUMER);
        return outbox.waiting === 0 && consumer.num_pending === 0 && consumer.num_ack_pending === 0;
      }, 20000);
    } finally {
      await connection.close();
    }
  }

  it('totals match the emails that were sent, per mode and per tag, with rates', async () => {
    const { key } = await stack.issueKey({ name: 'analytics', mode: 'test' });
    const ids = [
      await send(key, 'delivered@example.com', ['welcome']),
      await send(key, 'delivered+2@example.com', ['welcome']),
      await send(key, 'delivered+3@example.com'),
      await send(key, 'bounced@example.com', ['welcome']),
    ];
    const api = stack.api.withKey(key);
    for (const id of ids) await eventually(async () => ['delivered', 'bounced'].includes((await api.get(`/v1/emails/${id}`)).body.status), 20000);

    const totals = await eventually(async () => {
      const response = await api.get('/v1/analytics?interval=hour');
      expect(response.status).toBe(200);
      const { totals } = response.body;
      return totals.delivered === 3 && totals.bounced === 1 ? totals : undefined;
    }, 20000);
    expect(totals.sent).toBe(3);
    expect(totals.deliveryRate).toBe(0.75);
    expect(totals.bounceRate).toBe(0.25);

    const tagged = (await api.get('/v1/analytics?tags=welcome')).body.totals;
    expect(tagged.delivered).toBe(2);
    expect(tagged.bounced).toBe(1);

    // A domain in capitals is the same domain (counters are kept under the lower-case name).
    const byDomain = await api.get('/v1/analytics?domain=acme.test');
    const byCapitals = await api.get('/v1/analytics?domain=ACME.Test');
    expect(byCapitals.status).toBe(200);
    expect(byCapitals.body.totals).toEqual(byDomain.body.totals);
    expect(byDomain.body.totals.delivered).toBe(3);

    // Live keys see live counters only: nothing was sent live.
    const live = (await stack.api.get('/v1/analytics')).body.totals;
    expect(live.delivered).toBe(0);
  });

  it('counts every suppressed recipient, whether suppressed when the email was accepted or at delivery', async () => {
    const { key } = await stack.issueKey({ name: 'suppressed analytics', mode: 'test' });
    const api = stack.api.withKey(key);
    for (const email of ['listed-1@example.com', 'listed-2@example.com']) expect((await api.post('/v1/suppressions', { email })).status).toBe(201);
    const tags = ['suppressions'];
    const ids = [
      // One of two recipients on the list: the email is queued, and the other one delivered.
      await send(key, ['listed-1@example.com', 'reader@example.com'], tags),
      // Both on the list: the email is suppressed and never queued.
      await send(key, ['listed-1@example.com', 'listed-2@example.com'], tags),
      // Suppressed by the test-mode simulator at delivery.
      await send(key, ['suppressed@example.com'], tags),
    ];
    // A batch, one of its emails scheduled: each suppressed recipient has its own email.suppressed, counted once.
    const batch = await api.post('/v1/emails/batch', [
      { from: 'hello@acme.test', to: ['listed-2@example.com', 'later@example.com'], subject: 'Batch', text: 'hi', tags, scheduledAt: new Date(Date.now() + 86400_000).toISOString() },
      { from: 'hello@acme.test', to: ['listed-1@example.com', 'listed-2@example.com'], subject: 'Batch', text: 'hi', tags },
    ]);
    expect(batch.status).toBe(202);
    const scheduled = await api.get(`/v1/emails/${batch.body.data[0].id}`);
    expect(scheduled.body.status).toBe('scheduled');
    ids.push(batch.body.data[1].id);
    const emails = [];
    for (const id of ids) {
      emails.push(await eventually(async () => {
        const email = (await api.get(`/v1/emails/${id}`)).body;
        return ['delivered', 'suppressed'].includes(email.status) && email;
      }, 20000));
    }
    const suppressedRecipients =
      emails.flatMap((email) => email.recipients).filter((recipient: { status: string }) => recipient.status === 'suppressed').length +
      scheduled.body.recipients.filter((recipient: { status: string }) => recipient.status === 'suppressed').length;
    expect(suppressedRecipients).toBe(7);

    // Read once every event is published and counted, so a recipient counted twice shows rather than being passed on the way up.
    await everyEventCounted();
    const totals = (await api.get('/v1/analytics?interval=hour&tags=suppressions')).body.totals;
    expect(totals).toMatchObject({ delivered: 1, suppressed: suppressedRecipients });
  });

  it("counts outcomes per recipient under each of an email's tags, a complaint once, and an untagged email under no tag", async () => {
    const { key } = await stack.issueKey({ name: 'per-recipient analytics', mode: 'test' });
    const api = stack.api.withKey(key);
    const ids = [
      await send(key, ['delivered+per-recipient@example.com', 'complained+per-recipient@example.com', 'bounced+per-recipient@example.com'], ['per-recipient', 'per-recipient-2', 'per-recipient']),
      // The suppression list is one per mode: addresses of their own, none another test bounced.
      await send(key, ['delivered+untagged@example.com']),
    ];
    for (const id of ids) await eventually(async () => (await api.get(`/v1/emails/${id}`)).body.status === 'delivered', 20000);
    await eventually(async () => typeof (await api.get(`/v1/emails/${ids[0]}`)).body.complainedAt === 'string', 20000);
    await everyEventCounted();

    const counted = async (tags: string) => (await api.get(`/v1/analytics?interval=hour&tags=${tags}`)).body.totals;
    expect(await counted('per-recipient')).toMatchObject({ sent: 2, delivered: 2, bounced: 1, complained: 1, failed: 0, suppressed: 0 });
    expect(await counted('per-recipient-2')).toMatchObject({ sent: 2, delivered: 2, bounced: 1, complained: 1 });
    // Several tags add up, as the README says: this email carries both.
    expect(await counted('per-recipient,per-recipient-2')).toMatchObject({ delivered: 4, bounced: 2, complained: 2 });
  });

  it('returns a time series with one point per interval in the range', async () => {
    const from = new Date(Date.now() - 3 * 3_600_000).toISOString();
    const to = new Date().toISOString();
    const response = await stack.api.get(`/v1/analytics?interval=hour&from_date=${from}&to_date=${to}`);
    expect(response.status).toBe(200);
    expect(response.body.series.length).toBeGreaterThanOrEqual(3);
    expect(response.body.series.length).toBeLessThanOrEqual(4);
    expect(response.body.series[0]).toEqual(expect.objectContaining({ start: expect.any(String), delivered: 0, uniqueOpens: 0 }));
  });

  it('counts the hour a to_date with digits past the millisecond falls in, and orders bounds by every digit', async () => {
    const { key } = await stack.issueKey({ name: 'sub-millisecond bounds', mode: 'test' });
    const api = stack.api.withKey(key);
    const id = await send(key, 'delivered@example.com', ['sub-millisecond']);
    await eventually(async () => (await api.get(`/v1/emails/${id}`)).body.status === 'delivered', 20000);
    const hourMs = 3_600_000;
    const lastHours = `interval=hour&tags=sub-millisecond&from_date=${new Date(Date.now() - 2 * hourMs).toISOString()}`;
    const counted = await eventually(async () => (await api.get(`/v1/analytics?${lastHours}`)).body.series.find((point: { delivered: number }) => point.delivered === 1), 20000);
    // Python's isoformat() writes microseconds: half a microsecond into the hour is inside it, as 10:30 is.
    const intoTheHour = counted.start.replace('.000Z', '.000500Z');
    const previousHour = new Date(Date.parse(counted.start) - hourMs).toISOString();
    const upTo = await api.get(`/v1/analytics?interval=hour&tags=sub-millisecond&from_date=${previousHour}&to_date=${intoTheHour}`);
    expect(upTo.status).toBe(200);
    expect(upTo.body.totals.delivered).toBe(1);
    expect(upTo.body.series.map((point: { start: string }) => point.start)).toEqual([previousHour, counted.start]);
    const within = await api.get(`/v1/analytics?interval=hour&tags=sub-millisecond&from_date=${intoTheHour}&to_date=${counted.start.replace('.000Z', '.000900Z')}`);
    expect(within.status).toBe(200);
    expect(within.body.totals.delivered).toBe(1);
    const reversed = await api.get(`/v1/analytics?interval=hour&from_date=${counted.start.replace('.000Z', '.000900Z')}&to_date=${intoTheHour}`);
    expect(reversed.status).toBe(422);
    expect(reversed.body.error.message).toBe('from_date: must be before to_date');
  });

  it('needs analytics:read and validates its parameters', async () => {
    const { key } = await stack.issueKey({ permissions: ['emails:send'] });
    const forbidden = await stack.api.withKey(key).get('/v1/analytics');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.message).toContain('analytics:read');
    const bad = await stack.api.get('/v1/analytics?interval=week');
    expect(bad.status).toBe(422);
    expect(bad.body.error.message).toMatch(/^interval/);
    const reversed = await stack.api.get(`/v1/analytics?from_date=${new Date().toISOString()}&to_date=2020-01-01T00:00:00Z`);
    expect(reversed.status).toBe(422);
    expect(reversed.body.error.message).toMatch(/^from_date/);
    const future = await stack.api.get(`/v1/analytics?from_date=${new Date(Date.now() + 3_600_000).toISOString()}`);
    expect(future.status).toBe(422);
    expect(future.body.error.message).toBe('from_date: must be in the past when to_date is not given (it defaults to now)');
    // 2,000 hours from half past: the series would start at the whole hour and hold 2,001 points.
    const longest = await stack.api.get('/v1/analytics?interval=hour&from_date=2026-01-01T00:00:00Z&to_date=2026-03-25T08:00:00Z');
    expect(longest.status).toBe(200);
    expect(longest.body.series).toHaveLength(2000);
    const tooLong = await stack.api.get('/v1/analytics?interval=hour&from_date=2026-01-01T00:30:00Z&to_date=2026-03-25T08:30:00Z');
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error.message).toMatch(/^interval: this range has 2001 hours/);
  });
});
