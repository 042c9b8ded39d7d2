import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ApiClient, eventually, startStack, Stack, untilBlockedBy } from '@mailroom/testing';
import { connect, JSONCodec } from 'nats';
import { Client } from 'pg';
import { emailBody, inOneDay, queryDatabase } from './emails-api-fixtures';

describe('batch, cancel, reschedule and domain usage', () => {
  let stack: Stack;
  let test: ApiClient;
  const count = async (where = 'true') =>
    (await queryDatabase<{ n: number }>(stack.databaseUrl, `SELECT count(*)::int AS n FROM emails.emails WHERE ${where}`))[0].n;

  beforeAll(async () => {
    stack = await startStack({ env: { RATE_LIMIT_PER_SECOND: '0' } });
    test = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
  });
  afterAll(() => stack?.stop());

  describe('POST /v1/emails/batch', () => {
    it('stores every email of {emails: [...]} in one go and answers a list in request order', async () => {
      const response = await test.post('/v1/emails/batch', {
        emails: [emailBody({ subject: 'b0' }), emailBody({ subject: 'b1', scheduledAt: inOneDay() })],
      });
      expect(response.status).toBe(202);
      expect(response.body.object).toBe('list');
      expect(response.body.data.map((e: { subject: string; status: string }) => [e.subject, e.status])).toEqual([
        ['b0', 'queued'],
        ['b1', 'scheduled'],
      ]);
      expect(await count(`subject IN ('b0', 'b1')`)).toBe(2);
    });

    it('accepts a bare array too', async () => {
      const response = await test.post('/v1/emails/batch', [emailBody({ subject: 'bare' })]);
      expect(response.status).toBe(202);
      expect(response.body.data).toHaveLength(1);
    });

    it('is all or nothing: one invalid email stores none and names emails[i].field', async () => {
      const before = await count();
      const emails = [emailBody(), emailBody(), emailBody(), emailBody({ to: ['ok@example.com', 'x@'] })];
      const response = await test.post('/v1/emails/batch', emails);
      expect(response.status).toBe(422);
      expect(response.body.error.message).toMatch(/^emails\[3\]\.to\[1\]: 'x@' is not a valid email address/);
      const shape = await test.post('/v1/emails/batch', { emails: [emailBody(), emailBody({ subject: 7 })] });
      expect(shape.status).toBe(422);
      expect(shape.body.error.message).toMatch(/^emails\[1\]\.subject: /);
      expect(await count()).toBe(before);
    });

    it('takes at most 100 emails and at least one', async () => {
      const tooMany = await test.post('/v1/emails/batch', Array.from({ length: 101 }, () => emailBody()));
      expect(tooMany.status).toBe(422);
      expect(tooMany.body.error.message).toBe('emails: must hold 1 to 100 emails');
      const none = await test.post('/v1/emails/batch', []);
      expect(none.status).toBe(422);
      expect(none.body.error.message).toBe('emails: must hold 1 to 100 emails');
      const hundred = await test.post('/v1/emails/batch', Array.from({ length: 100 }, (_, i) => emailBody({ subject: `h${i}` })));
      expect(hundred.status).toBe(202);
      expect(await count(`subject LIKE 'h%'`)).toBe(100);
    });

    it('replays a batch for the same Idempotency-Key and body', async () => {
      const headers = { 'idempotency-key': 'batch-1' };
      const first = await test.post('/v1/emails/batch', [emailBody({ subject: 'idem-batch' })], { headers });
      const again = await test.post('/v1/emails/batch', [emailBody({ subject: 'idem-batch' })], { headers });
      expect(again.body).toEqual(first.body);
      expect(await count(`subject = 'idem-batch'`)).toBe(1);
      // The same key on another route is another request.
      expect((await test.post('/v1/emails', emailBody({ subject: 'idem-batch' }), { headers })).status).toBe(409);
    });
  });

  describe('cancel and reschedule', () => {
    it('cancels a scheduled email, with an outbox event, and 409 names the state afterwards', async () => {
      const { body: email } = await test.post('/v1/emails', emailBody({ scheduledAt: inOneDay(), cc: ['cc@example.com'] }));
      expect(email.recipients.map((recipient: { status: string }) => recipient.status)).toEqual(['queued', 'queued']);
      const cancelled = await test.post(`/v1/emails/${email.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ id: email.id, status: 'cancelled' });
      // Its recipients are cancelled with it, never left waiting.
      expect(cancelled.body.recipients).toEqual([
        expect.objectContaining({ kind: 'to', status: 'cancelled', nextAttemptAt: null }),
        expect.objectContaining({ kind: 'cc', status: 'cancelled', nextAttemptAt: null }),
      ]);
      expect((await test.get(`/v1/emails/${email.id}`)).body.recipients.map((recipient: { status: string }) => recipient.status)).toEqual(['cancelled', 'cancelled']);
      const [row] = await queryDatabase(stack.databaseUrl, 'SELECT next_attempt_at FROM emails.emails WHERE id = $1', [email.id]);
      expect(row.next_attempt_at).toBeNull();
      const events = await queryDatabase(stack.databaseUrl, `SELECT type FROM emails.outbox WHERE data->>'emailId' = $1 ORDER BY seq`, [email.id]);
      expect(events.map((e) => e.type)).toEqual(['email.scheduled', 'email.cancelled']);
      const again = await test.post(`/v1/emails/${email.id}/cancel`);
      expect(again.status).toBe(409);
      expect(again.body.error.message).toMatch(/is cancelled/);
    });

    it('cancels with an empty body sent as application/json, as SDKs that always set the header do', async () => {
      const { body: email } = await test.post('/v1/emails', emailBody({ scheduledAt: inOneDay() }));
      const cancelled = await test.request('POST', `/v1/emails/${email.id}/cancel`, { rawBody: '', headers: { 'content-type': 'application/json' } });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ id: email.id, status: 'cancelled' });
    });

    it('answers 409 naming the state when cancelling an email that is not scheduled', async () => {
      await test.post('/v1/suppressions', { email: 'never@example.com' });
      const { body: email } = await test.post('/v1/emails', emailBody({ to: 'never@example.com' }));
      const response = await test.post(`/v1/emails/${email.id}/cancel`);
      expect(response.status).toBe(409);
      expect(response.body.error.message).toMatch(/Only a scheduled email can be cancelled; .* is suppressed/);
    });

    it('reschedules a scheduled email with the same date rules', async () => {
      const { body: email } = await test.post('/v1/emails', emailBody({ scheduledAt: inOneDay() }));
      const later = new Date(Date.now() + 2 * 24 * 3600 * 1000).toISOString();
      const response = await test.patch(`/v1/emails/${email.id}`, { scheduledAt: later });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: 'scheduled', scheduledAt: later });
      const [row] = await queryDatabase(stack.databaseUrl, 'SELECT next_attempt_at FROM emails.emails WHERE id = $1', [email.id]);
      expect((row.next_attempt_at as Date).toISOString()).toBe(later);
      expect((await test.patch(`/v1/emails/${email.id}`, { scheduledAt: '2020-01-01T00:00:00Z' })).body.error.message).toMatch(
        /^scheduledAt: must be in the future/,
      );
      const far = await test.patch(`/v1/emails/${email.id}`, { scheduledAt: new Date(Date.now() + 40 * 24 * 3600 * 1000).toISOString() });
      expect(far.status).toBe(422);
      expect((await test.patch(`/v1/emails/${email.id}`, {})).body.error.message).toMatch(/^scheduledAt: /);
    });

    it('reads a scheduledAt without an offset as UTC', async () => {
      const inUtc = new Date(Math.ceil((Date.now() + 24 * 3600 * 1000) / 1000) * 1000).toISOString(); // …T12:34:56.000Z
      const withoutOffset = inUtc.slice(0, 19); // …T12:34:56
      const { body: email } = await test.post('/v1/emails', emailBody({ scheduledAt: withoutOffset }));
      expect(email).toMatchObject({ status: 'scheduled', scheduledAt: inUtc });
      const later = new Date(Date.parse(inUtc) + 3600 * 1000).toISOString();
      const response = await test.patch(`/v1/emails/${email.id}`, { scheduledAt: later.slice(0, 19) });
      expect(response.body).toMatchObject({ status: 'scheduled', scheduledAt: later });
    });

    it('reads it as UTC in a process whose time zone is not UTC, as a server\'s OS may set it', () => {
      // Jest cannot change its own zone: the gateway's DTO and the emails service's parser run in a child process
      // (from dist/, which the e2e global setup built).
      const script = `
        require('./dist/scripts/register-paths');
        const { validateDto, EmailSendDto } = require('@mailroom/contracts');
        const { parseScheduledAt } = require('./dist/apps/emails/src/emails/email-input.parser');
        const dto = validateDto(EmailSendDto, { from: 'a@b.test', to: 'c@d.test', subject: 's', text: 't', scheduledAt: process.argv[1] });
        console.log(JSON.stringify([new Date('2026-12-01T00:00:00').toISOString(), parseScheduledAt(dto.scheduledAt, 'scheduledAt', new Date()).toISOString()]));
      `;
      const inUtc = new Date(Math.ceil((Date.now() + 24 * 3600 * 1000) / 1000) * 1000).toISOString();
      const run = spawnSync(process.execPath, ['-e', script, inUtc.slice(0, 19)], { cwd: join(__dirname, '../../..'), env: { PATH: process.env.PATH, TZ: 'Asia/Kolkata' }, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      const [zoneCheck, scheduled] = JSON.parse(run.stdout);
      expect(zoneCheck).toBe('2026-11-30T18:30:00.000Z'); // the child really ran in Asia/Kolkata
      expect(scheduled).toBe(inUtc);
    });

    it('answers 409 when rescheduling an email that is not scheduled, and 404 for an unknown or invisible id', async () => {
      const { body: email } = await test.post('/v1/emails', emailBody({ scheduledAt: inOneDay() }));
      await test.post(`/v1/emails/${email.id}/cancel`);
      const response = await test.patch(`/v1/emails/${email.id}`, { scheduledAt: inOneDay() });
      expect(response.status).toBe(409);
      expect(response.body.error.message).toMatch(/is cancelled/);
      expect((await test.post('/v1/emails/email_01ARZ3NDEKTSV4RRFFQ69G5FAV/cancel')).status).toBe(404);
      // A live key does not see test emails at all.
      expect((await stack.api.post(`/v1/emails/${email.id}/cancel`)).status).toBe(404);
    });

    it('answers 409 while a worker holds a live lease on the scheduled email', async () => {
      const { body: email } = await test.post('/v1/emails', emailBody({ scheduledAt: inOneDay() }));
      await queryDatabase(stack.databaseUrl, `UPDATE emails.emails SET lease_owner = 'w1', lease_expires_at = now() + interval '1 minute' WHERE id = $1`, [
        email.id,
      ]);
      const response = await test.post(`/v1/emails/${email.id}/cancel`);
      expect(response.status).toBe(409);
      expect(response.body.error.message).toMatch(/being sent/);
    });

    it('waits for a worker claim in progress, then answers 409 to a cancel or a reschedule and leaves the claim as it is', async () => {
      const later = new Date(Date.now() + 2 * 24 * 3600 * 1000).toISOString();
      for (const act of [(id: string) => test.post(`/v1/emails/${id}/cancel`), (id: string) => test.patch(`/v1/emails/${id}`, { scheduledAt: later })]) {
        const { body: email } = await test.post('/v1/emails', emailBody({ scheduledAt: inOneDay() }));
        // What a worker's claim writes, not yet committed.
        const claim = new Client({ connectionString: stack.databaseUrl });
        await claim.connect();
        try {
          await claim.query('BEGIN');
          await claim.query(`UPDATE emails.emails SET status = 'queued', lease_owner = 'w1', lease_expires_at = now() + interval '1 minute' WHERE id = $1`, [email.id]);
          const answer = act(email.id);
          await untilBlockedBy(claim);
          await claim.query('COMMIT');
          const response = await answer;
          expect(response.status).toBe(409);
          expect(response.body.error.message).toMatch(/is queued/);
        } finally {
          await claim.end();
        }
        const [row] = await queryDatabase(stack.databaseUrl, 'SELECT status, lease_owner, scheduled_at FROM emails.emails WHERE id = $1', [email.id]);
        expect(row).toEqual({ status: 'queued', lease_owner: 'w1', scheduled_at: new Date(email.scheduledAt) });
      }
    });

    /**
     * 40 emails due 4 s from now; `act` on each, one every 50 ms from 1 s before their time to 1 s after it:
     * the first reach the email before any worker may, the last after. Once none is waiting to be claimed
     * (`settledWhen`), each email's [answer, status, outbox events] must be one of `outcomes`.
     */
    const raceTheDueInstant = async (
      label: string,
      act: (id: string) => Promise<number>,
      settledWhen: (row: { status: string; next_attempt_at: Date | null }) => boolean,
      outcomes: Array<[number, string, string[]]>,
    ) => {
      const dueAt = Date.now() + 4000;
      const batch = await test.post('/v1/emails/batch', Array.from({ length: 40 }, (_, i) => emailBody({ subject: `${label} ${i}`, scheduledAt: new Date(dueAt).toISOString() })));
      const ids: string[] = batch.body.data.map((email: { id: string }) => email.id);
      expect(Date.now()).toBeLessThan(dueAt - 1000);
      const answers = await Promise.all(
        ids.map(async (id, i) => {
          await new Promise((resolve) => setTimeout(resolve, dueAt - 1000 + i * 50 - Date.now()));
          return act(id);
        }),
      );
      const settled = await eventually(async () => {
        const rows = await queryDatabase<{ id: string; status: string; next_attempt_at: Date | null; events: string[] }>(
          stack.databaseUrl,
          `SELECT e.id, e.status, e.next_attempt_at, array(SELECT o.type FROM emails.outbox o WHERE o.data->>'emailId' = e.id ORDER BY o.seq) AS events
             FROM emails.emails e WHERE e.id = ANY($1)`,
          [ids],
        );
        return rows.every(settledWhen) && new Map(rows.map((row) => [row.id, row]));
      }, 20000);
      // Both sides of the race were run, not only one.
      expect(new Set(answers)).toEqual(new Set([200, 409]));
      for (const [i, id] of ids.entries()) expect(outcomes).toContainEqual([answers[i], settled.get(id)!.status, settled.get(id)!.events]);
    };

    it('settles a cancel racing the worker that claims the email at its time one way: cancelled and never sent, or 409 and sent', async () => {
      await raceTheDueInstant(
        'race',
        async (id) => (await test.post(`/v1/emails/${id}/cancel`)).status,
        (row) => row.status !== 'queued' && row.status !== 'scheduled',
        [
          [200, 'cancelled', ['email.scheduled', 'email.cancelled']],
          [409, 'delivered', ['email.scheduled', 'email.queued', 'email.delivered']],
        ],
      );
    });

    it('settles a reschedule racing the worker the same way: rescheduled and not sent, or 409 and sent at the old time', async () => {
      const later = new Date(Date.now() + 24 * 3600 * 1000);
      await raceTheDueInstant(
        'reschedule race',
        async (id) => (await test.patch(`/v1/emails/${id}`, { scheduledAt: later.toISOString() })).status,
        (row) => row.status === 'delivered' || (row.status === 'scheduled' && row.next_attempt_at?.getTime() === later.getTime()),
        [
          [200, 'scheduled', ['email.scheduled', 'email.scheduled']],
          [409, 'delivered', ['email.scheduled', 'email.queued', 'email.delivered']],
        ],
      );
    });

    it('sends a rescheduled email at its new time, earlier than the first, and not before it', async () => {
      const { body: email } = await test.post('/v1/emails', emailBody({ scheduledAt: inOneDay() }));
      const soon = new Date(Date.now() + 1500).toISOString();
      expect((await test.patch(`/v1/emails/${email.id}`, { scheduledAt: soon })).status).toBe(200);
      const [queued] = await eventually(
        async () => {
          const rows = await queryDatabase<{ created_at: Date }>(stack.databaseUrl, `SELECT created_at FROM emails.outbox WHERE type = 'email.queued' AND data->>'emailId' = $1`, [email.id]);
          return rows.length > 0 && rows;
        },
        8000,
      );
      expect(queued.created_at.getTime()).toBeGreaterThanOrEqual(Date.parse(soon));
      expect((await eventually(async () => ((await test.get(`/v1/emails/${email.id}`)).body.status === 'delivered' ? true : undefined), 5000))).toBe(true);
    });

    it('takes a reschedule to the time it already has, and rules out a time now past or over 30 days ahead', async () => {
      const at = inOneDay();
      const { body: email } = await test.post('/v1/emails', emailBody({ scheduledAt: at }));
      const same = await test.patch(`/v1/emails/${email.id}`, { scheduledAt: at });
      expect(same.status).toBe(200);
      expect(same.body).toMatchObject({ status: 'scheduled', scheduledAt: at });
      // A retried PATCH changes nothing, so webhooks hear of no reschedule: the acceptance's email.scheduled is the only one.
      const events = await queryDatabase(stack.databaseUrl, `SELECT type FROM emails.outbox WHERE data->>'emailId' = $1 ORDER BY seq`, [email.id]);
      expect(events.map((event) => event.type)).toEqual(['email.scheduled']);
      const past = await test.patch(`/v1/emails/${email.id}`, { scheduledAt: new Date(Date.now() - 1000).toISOString() });
      expect(past.status).toBe(422);
      expect(past.body.error.message).toMatch(/^scheduledAt: must be in the future/);
      const far = await test.patch(`/v1/emails/${email.id}`, { scheduledAt: new Date(Date.now() + 30 * 24 * 3600 * 1000 + 60_000).toISOString() });
      expect(far.status).toBe(422);
      expect(far.body.error.message).toMatch(/^scheduledAt: must be at most 30 days ahead/);
      expect((await test.get(`/v1/emails/${email.id}`)).body).toMatchObject({ status: 'scheduled', scheduledAt: at });
    });

    it('cancels one email of a batch and leaves the others scheduled', async () => {
      const at = inOneDay();
      const batch = await test.post('/v1/emails/batch', [emailBody({ subject: 'member 0', scheduledAt: at }), emailBody({ subject: 'member 1', scheduledAt: at })]);
      const [first, second] = batch.body.data.map((email: { id: string }) => email.id);
      expect((await test.post(`/v1/emails/${first}/cancel`)).body).toMatchObject({ id: first, status: 'cancelled' });
      expect((await test.get(`/v1/emails/${second}`)).body).toMatchObject({ status: 'scheduled', scheduledAt: at });
      expect((await test.patch(`/v1/emails/${second}`, { scheduledAt: at })).status).toBe(200);
      expect((await test.post(`/v1/emails/${first}/cancel`)).status).toBe(409);
    });

    it('needs emails:send', async () => {
      const { body: email } = await test.post('/v1/emails', emailBody({ scheduledAt: inOneDay() }));
      const reader = stack.api.withKey((await stack.issueKey({ mode: 'test', permissions: ['emails:read'] })).key);
      expect((await reader.post(`/v1/emails/${email.id}/cancel`)).status).toBe(403);
      expect((await reader.patch(`/v1/emails/${email.id}`, { scheduledAt: inOneDay() })).status).toBe(403);
    });

    it('answers a key that may send but not read with the change alone, never the content', async () => {
      const secret = 'CONTENT-a81f-only-for-readers';
      const later = new Date(Date.now() + 2 * 24 * 3600 * 1000).toISOString();
      const sender = stack.api.withKey((await stack.issueKey({ mode: 'test', permissions: ['emails:send'] })).key);
      const both = stack.api.withKey((await stack.issueKey({ mode: 'test', permissions: ['emails:send', 'emails:read'] })).key);
      const scheduled = () => test.post('/v1/emails', emailBody({ subject: 'S', text: secret, html: `<p>${secret}</p>`, cc: ['cc@example.com'], metadata: { note: secret }, scheduledAt: inOneDay() }));
      const [first, second, third] = [(await scheduled()).body, (await scheduled()).body, (await scheduled()).body];
      const changeAlone = (id: string, status: string, scheduledAt: string | null) => ({ id, object: 'email', from: first.from, to: first.to, subject: 'S', status, scheduledAt, createdAt: expect.any(String) });

      const rescheduled = await sender.patch(`/v1/emails/${first.id}`, { scheduledAt: later });
      expect(rescheduled.status).toBe(200);
      expect(rescheduled.body).toStrictEqual(changeAlone(first.id, 'scheduled', later));
      // A reschedule to the time it already has changes nothing, and tells no more.
      const retried = await sender.patch(`/v1/emails/${second.id}`, { scheduledAt: second.scheduledAt });
      expect(retried.body).toStrictEqual(changeAlone(second.id, 'scheduled', second.scheduledAt));
      const cancelled = await sender.post(`/v1/emails/${second.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toStrictEqual(changeAlone(second.id, 'cancelled', second.scheduledAt));
      expect(JSON.stringify([rescheduled.body, retried.body, cancelled.body])).not.toContain(secret);

      // With emails:read too, the full email, as GET answers it.
      const full = await both.post(`/v1/emails/${third.id}/cancel`);
      expect(full.status).toBe(200);
      expect(full.body).toMatchObject({ id: third.id, status: 'cancelled', text: secret, cc: ['cc@example.com'], metadata: { note: secret } });
      expect(full.body).toStrictEqual((await both.get(`/v1/emails/${third.id}`)).body);
    });
  });

  it('answers emails.domain.usage with the live emails from the domain still queued or scheduled', async () => {
    const { body: a } = await test.post('/v1/emails', emailBody({ from: 'a@usage.test', scheduledAt: inOneDay() }));
    const { body: b } = await test.post('/v1/emails', emailBody({ from: 'b@Usage.test', scheduledAt: inOneDay() }));
    const { body: cancelled } = await test.post('/v1/emails', emailBody({ from: 'c@usage.test', scheduledAt: inOneDay() }));
    await test.post(`/v1/emails/${cancelled.id}/cancel`);
    // This stack has no verified domain to send live from: three of the emails are made live in place. The
    // fourth stays a test email, which never uses the domain (no DKIM key, no SMTP) and so does not hold it.
    await queryDatabase(stack.databaseUrl, `UPDATE emails.emails SET mode = 'live' WHERE id = ANY($1)`, [[a.id, b.id, cancelled.id]]);
    await test.post('/v1/emails', emailBody({ from: 'd@usage.test', scheduledAt: inOneDay() }));
    const nc = await connect({ servers: stack.nats.url });
    try {
      const codec = JSONCodec();
      // Nest's NATS transport wraps payloads as { pattern, data, id } and answers { response }.
      const reply = await nc.request('emails.domain.usage', codec.encode({ pattern: 'emails.domain.usage', data: { domainName: 'usage.test' }, id: '1' }), {
        timeout: 5000,
      });
      expect((codec.decode(reply.data) as { response: unknown }).response).toEqual({ activeEmails: 2 });
    } finally {
      await nc.close();
    }
  });
});
