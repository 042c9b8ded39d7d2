import { Client } from 'pg';
import { ApiClient, startStack, Stack } from '@mailroom/testing';
import { emailBody, inOneDay } from './emails-api-fixtures';

const EMAILS = 20;
const LISTS = 150;

/**
 * A page of GET /v1/emails and its totalCount describe one moment, even while
 * statuses change: a status filter's page holding 0 emails beside a
 * totalCount of 20 (or the other way round) says something that was never true.
 */
describe('GET /v1/emails while statuses change', () => {
  let stack: Stack;
  let test: ApiClient;
  let db: Client;

  beforeAll(async () => {
    stack = await startStack({ env: { RATE_LIMIT_PER_SECOND: '0' } });
    test = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
    // A day ahead, so no worker touches them: only the statements below change their status.
    for (let i = 0; i < EMAILS; i++) expect((await test.post('/v1/emails', emailBody({ scheduledAt: inOneDay() }))).status).toBe(202);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  it('answers a page and a totalCount that agree, as one snapshot would', async () => {
    let listing = true;
    let flips = 0;
    // Every statement moves all the emails at once, as a worker's commits move emails between statuses:
    // any one moment holds either all of them in `scheduled` or none.
    const flipping = (async () => {
      while (listing) {
        await db.query(`UPDATE emails.emails SET status = CASE status WHEN 'scheduled' THEN 'cancelled' ELSE 'scheduled' END WHERE mode = 'test'`);
        flips++;
      }
    })();
    const disagreements: string[] = [];
    let lists = 0;
    const giveUpAt = Date.now() + 60_000;
    try {
      // Lists go on until the statuses have also changed LISTS times while they ran (on a loaded
      // machine the flips can be the slower side), or this test proves nothing.
      while ((lists < LISTS || flips < LISTS) && Date.now() < giveUpAt) {
        const { body } = await test.get('/v1/emails?status=scheduled&limit=100');
        if (body.data.length !== body.totalCount) disagreements.push(`${body.data.length} listed, totalCount ${body.totalCount}`);
        lists++;
      }
    } finally {
      listing = false;
      await flipping;
    }
    expect(flips).toBeGreaterThanOrEqual(LISTS);
    expect(lists).toBeGreaterThanOrEqual(LISTS);
    expect(disagreements).toEqual([]);
  }, 90_000);
});
