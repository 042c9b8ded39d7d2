import { eventually, startStack, Stack } from '@mailroom/testing';

describe('GET /v1/analytics', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  async function send(key: string, to: string, tags: string[] = []) {
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

    // Live keys see live counters only: nothing was sent live.
    const live = (await stack.api.get('/v1/analytics')).body.totals;
    expect(live.delivered).toBe(0);
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
  });
});
