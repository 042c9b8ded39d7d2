import { ApiClient, eventually, startStack, Stack } from '@mailroom/testing';
import { emailBody, inOneDay, queryDatabase } from './emails-api-fixtures';

/** Pairs whose order differs between code points (JavaScript's sort) and an English collation. */
const TAG_PAIRS = [
  ['B', 'a'],
  ['Zeta', 'alpha'],
  ['x-1', 'x_1'],
];

/**
 * A database created with a language's locale (as Debian's postgres image and
 * most managed services create theirs) sorts `a` before `B`, where the test
 * server's C locale sorts by code point. totalCount of a two-tag filter must
 * not depend on which.
 */
describe('GET /v1/emails totalCount on a database with an English collation', () => {
  let stack: Stack;
  let test: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ databaseIcuLocale: 'en-US' });
    test = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
    for (const tags of TAG_PAIRS) {
      const response = await test.post('/v1/emails', emailBody({ tags, scheduledAt: inOneDay() }));
      expect(response.status).toBe(202);
    }
  });
  afterAll(() => stack?.stop());

  const countsOf = async (tags: string[]) => {
    const response = await test.get(`/v1/emails?tags=${tags.join(',')}&limit=100`);
    expect(response.status).toBe(200);
    return { listed: response.body.data.length, totalCount: response.body.totalCount };
  };

  it.each(TAG_PAIRS)('counts the emails tagged %s and %s as it lists them, with the tags in either order', async (first, second) => {
    expect(await countsOf([first, second])).toEqual({ listed: 1, totalCount: 1 });
    expect(await countsOf([second, first])).toEqual({ listed: 1, totalCount: 1 });
  });

  it('counts them alike once the pending deltas are folded into the buckets', async () => {
    await eventually(async () => (await queryDatabase(stack.databaseUrl, 'SELECT 1 FROM emails.email_count_deltas')).length === 0);
    for (const [first, second] of TAG_PAIRS) expect(await countsOf([second, first])).toEqual({ listed: 1, totalCount: 1 });
  });
});
