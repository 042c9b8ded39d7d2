import { ApiClient, startStack, Stack } from '@mailroom/testing';

/** A 250-character domain name, distinct per key and per item: 100 of them make a key of about 25 KB. */
const longDomain = (key: number, item: number) =>
  [String(item).padStart(3, '0'), String(key).padStart(3, '0')].map((label) => label + 'x'.repeat(59)).concat(['y'.repeat(60), 'z'.repeat(55), 'example']).join('.');

/**
 * Every list is one NATS answer. GET /v1/emails asks again with half the limit
 * when its page is larger than the bus carries (max_payload, 1 MB by default);
 * the other lists answered 413 payload_too_large, so a client paging with
 * limit=100 could not list its API keys at all.
 */
describe('a list page larger than the message bus carries', () => {
  let stack: Stack;
  let api: ApiClient;
  const created = new Set<string>();

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'gateway'] });
    api = stack.api;
    for (let key = 0; key < 60; key++) {
      const domainRestrictions = Array.from({ length: 100 }, (_, item) => longDomain(key, item));
      created.add((await stack.issueKey({ name: `wide ${key}`, domainRestrictions })).id);
    }
  }, 120000);
  afterAll(() => stack?.stop());

  it('comes back shorter, with hasMore, and paging still finds every API key once, in both directions', async () => {
    // 60 keys of about 25 KB each come to about 1.5 MB.
    const first = await api.get('/v1/api-keys?limit=100');
    expect({ status: first.status, error: first.body.error }).toEqual({ status: 200, error: undefined });
    expect(first.body.data.length).toBeLessThan(61);
    expect(first.body.data.length).toBeGreaterThanOrEqual(20);
    expect([first.body.hasMore, first.body.totalCount]).toEqual([true, 61]);

    const seen: string[] = first.body.data.map((item: { id: string }) => item.id);
    for (let page = first.body; page.hasMore; ) {
      const next = await api.get(`/v1/api-keys?limit=100&starting_after=${seen[seen.length - 1]}`);
      expect(next.status).toBe(200);
      page = next.body;
      seen.push(...page.data.map((item: { id: string }) => item.id));
    }
    // The 60 keys and the stack's own root key, each once.
    expect(new Set(seen).size).toBe(61);
    expect(seen.filter((id) => created.has(id)).sort()).toEqual([...created].sort());

    const back = await api.get(`/v1/api-keys?limit=100&ending_before=${seen[seen.length - 1]}`);
    expect(back.status).toBe(200);
    expect(back.body.hasMore).toBe(true);
    expect(back.body.data.map((item: { id: string }) => item.id)).toEqual(seen.slice(seen.length - 1 - back.body.data.length, seen.length - 1));
  });
});
