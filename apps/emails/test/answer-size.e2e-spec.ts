import { ApiClient, startStack, Stack } from '@mailroom/testing';
import { emailBody, inOneDay } from './emails-api-fixtures';

/** Long enough that a page of 100 list items no longer fits NATS's default max_payload of 1 MB. */
const longAddress = (i: number) => `${'r'.repeat(50)}${i}@${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(50)}.example.com`;

/**
 * Every answer travels back to the gateway in one NATS message. One that
 * does not fit answered nothing: the gateway waited RPC_TIMEOUT_MS and said
 * 503 "try again", and trying again got the same.
 */
describe('an answer larger than the message bus carries', () => {
  let stack: Stack;
  let test: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ env: { RATE_LIMIT_PER_SECOND: '0', RPC_TIMEOUT_MS: '4000' } });
    test = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
  });
  afterAll(() => stack?.stop());

  it('is answered at once with payload_too_large, so a page of emails is asked for again, shorter, and paging still finds every email once', async () => {
    const to = Array.from({ length: 50 }, (_, i) => longAddress(i));
    expect(Buffer.byteLength(JSON.stringify(to))).toBeGreaterThan(11_000);
    // Sent ten at a time (ids are ULIDs, so the list's order does not depend on theirs), and scheduled a day
    // ahead, so no worker spends the test delivering 5,000 recipients or changes the items while they are paged.
    const sent = new Set<string>();
    for (let batch = 0; batch < 10; batch++) {
      const responses = await Promise.all(Array.from({ length: 10 }, () => test.post('/v1/emails', emailBody({ to, scheduledAt: inOneDay() }))));
      expect(responses.map((response) => response.status)).toEqual(Array(10).fill(202));
      for (const response of responses) sent.add(response.body.id);
    }

    // 100 such items come to about 1.2 MB, over NATS's default max_payload of 1 MB.
    const started = Date.now();
    const first = await test.get('/v1/emails?limit=100');
    expect(first.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(first.body.data.length).toBeLessThan(100);
    expect(first.body.data.length).toBeGreaterThanOrEqual(25);
    expect([first.body.hasMore, first.body.totalCount]).toEqual([true, 100]);

    const seen: string[] = first.body.data.map((item: { id: string }) => item.id);
    for (let page = first.body; page.hasMore; ) {
      page = (await test.get(`/v1/emails?limit=100&starting_after=${seen[seen.length - 1]}`)).body;
      seen.push(...page.data.map((item: { id: string }) => item.id));
    }
    expect(seen).toHaveLength(100);
    expect(new Set(seen)).toEqual(sent);

    // Towards newer emails too: the items nearest the cursor come first.
    const back = await test.get(`/v1/emails?limit=100&ending_before=${seen[seen.length - 1]}`);
    expect(back.status).toBe(200);
    expect(back.body.hasMore).toBe(true);
    expect(back.body.data.map((item: { id: string }) => item.id)).toEqual(seen.slice(seen.length - 1 - back.body.data.length, seen.length - 1));
  });
});
