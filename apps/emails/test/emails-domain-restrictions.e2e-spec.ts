import { ApiClient, startStack, Stack } from '@mailroom/testing';
import { emailBody, inOneDay, queryDatabase } from './emails-api-fixtures';

/**
 * A key with domainRestrictions on every email route that sends or reads per domain (README "Sending",
 * "Reading", "Analytics"): it sends only from its domains, and another domain's mail is not there for it.
 */
describe('domainRestrictions on the email routes', () => {
  let stack: Stack;
  let unrestricted: ApiClient;
  let restricted: ApiClient;
  const emailsWithSubject = async (subject: string) =>
    (await queryDatabase<{ n: number }>(stack.databaseUrl, 'SELECT count(*)::int AS n FROM emails.emails WHERE subject = $1', [subject]))[0].n;

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'emails', 'gateway'] });
    unrestricted = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
    restricted = stack.api.withKey((await stack.issueKey({ mode: 'test', domainRestrictions: ['allowed.test'] })).key);
  });
  afterAll(() => stack?.stop());

  it('refuses a whole batch of 100 for one email from another domain, naming that email, and stores none of it', async () => {
    const subject = 'batch with one stranger';
    const emails = Array.from({ length: 100 }, (_, index) => emailBody({ subject, from: index === 57 ? 'hi@other.test' : 'hi@allowed.test' }));
    const response = await restricted.post('/v1/emails/batch', { emails });
    expect(response.status).toBe(403);
    expect(response.body.error).toEqual({ code: 'forbidden', message: expect.stringMatching(/^emails\[57\]\.from: .*'other\.test' is not one of them/) });
    expect(await emailsWithSubject(subject)).toBe(0);
    expect((await restricted.post('/v1/emails/batch', { emails: emails.filter((_, index) => index !== 57) })).status).toBe(202);
    expect(await emailsWithSubject(subject)).toBe(99);
  });

  it('names the from field of a single send it refuses', async () => {
    const response = await restricted.post('/v1/emails', emailBody({ from: 'Other <hi@other.test>' }));
    expect(response.status).toBe(403);
    expect(response.body.error).toEqual({ code: 'forbidden', message: expect.stringMatching(/^from: .*'other\.test' is not one of them/) });
  });

  it('takes its own domain in any case, and no subdomain of it', async () => {
    expect((await restricted.post('/v1/emails', emailBody({ from: 'Hi <hi@Allowed.TEST>' }))).status).toBe(202);
    expect((await restricted.post('/v1/emails', emailBody({ from: 'hi@mail.allowed.test' }))).status).toBe(403);
  });

  it('cannot read, cancel or reschedule a scheduled email of another domain (404), which stays scheduled', async () => {
    const other = await unrestricted.post('/v1/emails', emailBody({ from: 'hi@other.test', scheduledAt: inOneDay() }));
    expect(other.status).toBe(202);
    const answers = [
      await restricted.get(`/v1/emails/${other.body.id}`),
      await restricted.post(`/v1/emails/${other.body.id}/cancel`),
      await restricted.patch(`/v1/emails/${other.body.id}`, { scheduledAt: inOneDay() }),
    ];
    expect(answers.map((answer) => [answer.status, answer.body.error?.code])).toEqual([
      [404, 'not_found'],
      [404, 'not_found'],
      [404, 'not_found'],
    ]);
    const after = await unrestricted.get(`/v1/emails/${other.body.id}`);
    expect([after.body.status, after.body.scheduledAt]).toEqual([other.body.status, other.body.scheduledAt]);
    const listed = await restricted.get('/v1/emails?limit=100&status=scheduled');
    expect(listed.body.data.map((email: { id: string }) => email.id)).not.toContain(other.body.id);
  });

  it('is refused analytics of another domain (403), in any spelling, and given its own', async () => {
    for (const domain of ['other.test', 'OTHER.test']) {
      const response = await restricted.get(`/v1/analytics?domain=${domain}`);
      expect({ domain, status: response.status, code: response.body.error?.code }).toEqual({ domain, status: 403, code: 'forbidden' });
    }
    expect((await restricted.get('/v1/analytics?domain=Allowed.test')).status).toBe(200);
  });
});
