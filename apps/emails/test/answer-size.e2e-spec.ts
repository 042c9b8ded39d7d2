import { ApiClient, startStack, Stack } from '@mailroom/testing';
import { emailBody } from './emails-api-fixtures';

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

  it('is answered at once with 413 payload_too_large saying why, and a smaller page is served', async () => {
    const to = Array.from({ length: 50 }, (_, i) => longAddress(i));
    expect(Buffer.byteLength(JSON.stringify(to))).toBeGreaterThan(11_000);
    for (let i = 0; i < 100; i++) expect((await test.post('/v1/emails', emailBody({ to }))).status).toBe(202);

    const started = Date.now();
    const whole = await test.get('/v1/emails?limit=100');
    expect(whole.status).toBe(413);
    expect(whole.body.error).toEqual({ code: 'payload_too_large', message: expect.stringMatching(/^The answer is \d+ bytes, more than the \d+ bytes .*max_payload/) });
    expect(Date.now() - started).toBeLessThan(4000);

    const page = await test.get('/v1/emails?limit=20');
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(20);
  });
});
