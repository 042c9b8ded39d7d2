import { Client } from 'pg';
import { eventually, untilBlockedBy } from '@mailroom/testing';
import { SENDING_DOMAIN_LOCK_CLASS } from '../../emails/src/domain-usage/sending-domain-lock';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, verifiedDomain } from '../../emails/test/support/delivery-harness';
import { uniqueDomain } from './domains-fixtures';

const inOneDay = () => new Date(Date.now() + 24 * 3600 * 1000).toISOString();

/**
 * DELETE /v1/domains/{id} asks the emails service over NATS whether mail from
 * the domain is still on its way: scheduled, queued, or in an SMTP session.
 * The real stack delivers to a real SMTP server found through the test DNS.
 */
describe('domains: deletion refused while the domain is in use', () => {
  let harness: DeliveryHarness;

  beforeAll(async () => {
    // Retries a second apart: a deferred email stays queued long enough to be seen, and is retried soon after.
    harness = await startDeliveryHarness({ DELIVERY_RETRY_SCHEDULE: '1s,1s,1s,1s,1s' }, ['keys', 'domains', 'emails', 'gateway']);
    routeMailTo(harness.dns, 'example.test');
  }, 60000);
  afterAll(() => harness?.stop());
  beforeEach(() => harness.smtp.clear());

  const api = () => harness.stack.api;
  const send = async (from: string, body: Record<string, unknown> = {}) => {
    const response = await api().post('/v1/emails', { from: `Acme <hi@${from}>`, to: 'bob@example.test', subject: 'Hello', text: 'Hi there', ...body });
    expect(response.status).toBe(202);
    return response.body as { id: string; status: string };
  };
  const expectInUse = async (domain: { id: string; name: string }) => {
    const refused = await api().delete(`/v1/domains/${domain.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'in_use', message: expect.stringContaining(domain.name) });
    const kept = await api().get(`/v1/domains/${domain.id}`);
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ id: domain.id, status: 'verified' });
  };
  const expectDeleted = async (domain: { id: string }) => {
    const deleted = await api().delete(`/v1/domains/${domain.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: domain.id, object: 'domain', deleted: true });
    const gone = await api().get(`/v1/domains/${domain.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('not_found');
  };

  it('deletes a domain once when several requests race to delete it: one 200, the rest 404', async () => {
    const created = (await api().post('/v1/domains', { name: uniqueDomain('race') })).body;
    const answers = await Promise.all(Array.from({ length: 6 }, () => api().delete(`/v1/domains/${created.id}`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404, 404, 404, 404, 404]);
  });

  it('refuses while an email from the domain is scheduled, and deletes once it is cancelled', async () => {
    const domain = await verifiedDomain(harness, uniqueDomain('scheduled'));
    const other = await verifiedDomain(harness, uniqueDomain('bystander'));
    const email = await send(domain.name, { scheduledAt: inOneDay() });
    expect(email.status).toBe('scheduled');
    // Mail from another domain does not hold this one.
    expect((await send(other.name, { scheduledAt: inOneDay() })).status).toBe('scheduled');

    await expectInUse(domain);
    expect((await api().post(`/v1/emails/${email.id}/cancel`)).status).toBe(200);
    await expectDeleted(domain);
    await expectInUse(other);
  });

  it('deletes a domain whose only mail on its way is test-mode mail, which never uses it', async () => {
    const domain = await verifiedDomain(harness, uniqueDomain('testmode'));
    // A test key sends from any domain without it: no DKIM key, no SMTP. Its email, scheduled for a day
    // (up to 30), held the live domain for that long, and a live key could neither see nor cancel it.
    const testKey = api().withKey((await harness.stack.issueKey({ mode: 'test' })).key);
    const scheduled = await testKey.post('/v1/emails', { from: `hi@${domain.name}`, to: 'bob@example.test', subject: 'Hello', text: 'Hi', scheduledAt: inOneDay() });
    expect(scheduled.body).toMatchObject({ status: 'scheduled' });
    expect((await api().get(`/v1/emails/${scheduled.body.id}`)).status).toBe(404);

    await expectDeleted(domain);
    // The test email is not the domain's: it stays scheduled, and goes out in test mode as before.
    expect((await testKey.get(`/v1/emails/${scheduled.body.id}`)).body.status).toBe('scheduled');
  });

  it('refuses while an email from the domain is queued for a retry after a 4xx', async () => {
    const domain = await verifiedDomain(harness, uniqueDomain('deferred'));
    harness.smtp.rejectRecipient('bob@example.test', 451, '4.7.1 Try again later');
    const { id } = await send(domain.name);
    const deferred = await eventually(async () => {
      const email = (await api().get(`/v1/emails/${id}`)).body;
      return email.recipients[0].attempts >= 1 && email.recipients[0].status === 'deferred' ? email : undefined;
    });
    expect(deferred).toMatchObject({ status: 'queued', recipients: [{ smtpCode: 451 }] });
    // Waiting for its retry, it is listed as queued (the interface's filter), and not as delivered.
    const listedAs = async (status: string) => (await api().get(`/v1/emails?status=${status}&limit=100`)).body.data.map((item: { id: string; status: string }) => [item.id, item.status]);
    expect(await listedAs('queued')).toContainEqual([id, 'queued']);
    expect(await listedAs('delivered')).not.toContainEqual([id, expect.anything()]);

    await expectInUse(domain);
    // The server takes it now: the next retry delivers, and nothing holds the domain any more.
    harness.smtp.clear();
    await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    await expectDeleted(domain);
  });

  it('refuses while an email from the domain is in the middle of its SMTP session', async () => {
    const domain = await verifiedDomain(harness, uniqueDomain('sending'));
    const held = harness.smtp.holdNextData();
    const { id } = await send(domain.name);
    // The message is on the wire; the server has not answered DATA yet.
    await held.arrived;
    expect((await api().get(`/v1/emails/${id}`)).body.status).toBe('queued');

    await expectInUse(domain);
    held.release();
    await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    await expectDeleted(domain);
  });

  /** A session of the test's own, to hold locks the services' statements then wait on. */
  const withHolder = async (hold: (holder: Client) => Promise<void>) => {
    const holder = new Client({ connectionString: harness.stack.databaseUrl });
    await holder.connect();
    try {
      await hold(holder);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  };
  const advisoryWaiters = async (db: Client) =>
    (await db.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)).rows[0].n as number;
  const settled = (promise: Promise<unknown>) => {
    let done = false;
    void promise.finally(() => (done = true));
    return () => done;
  };
  const crossingSend = (domain: string) => api().post('/v1/emails', { from: `hi@${domain}`, to: 'bob@example.test', subject: 'Crossed', text: 'Hi' });

  it('never both deletes a domain and accepts a send that crossed its in-use check: the check waits for the send, and refuses (in_use)', async () => {
    const domain = await verifiedDomain(harness, uniqueDomain('crossed'));
    await withHolder(async (holder) => {
      // The send has found the domain verified and its insert statement has taken the domain's lock: held there
      // by a lock on the deletions table, which the statement reads next to learn whether the domain was deleted.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE emails.sending_domain_deletions IN ACCESS EXCLUSIVE MODE');
      const sending = crossingSend(domain.name);
      await untilBlockedBy(holder);
      const deleting = api().delete(`/v1/domains/${domain.id}`);
      // Either the deletion is done (it did not wait for the send) or its in-use check waits for the send.
      const deleted = settled(deleting);
      await eventually(async () => (deleted() || (await advisoryWaiters(harness.db)) > 0 ? true : undefined));
      await holder.query('COMMIT');
      const [sent, refused] = await Promise.all([sending, deleting]);
      expect({ send: sent.status, delete: refused.status }).toEqual({ send: 202, delete: 409 });
      expect(refused.body.error).toMatchObject({ code: 'in_use', message: expect.stringContaining(domain.name) });
      await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['delivered']);
    });
  });

  it('refuses (422, naming from) a send that found its domain verified just before a deletion that then went through', async () => {
    const domain = await verifiedDomain(harness, uniqueDomain('retired'));
    await withHolder(async (holder) => {
      // The domain's lock, as the emails service takes it: the deletion's in-use check queues on it first,
      // then the send, which has already found the domain verified (the deletion has not removed it yet).
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [SENDING_DOMAIN_LOCK_CLASS, domain.name]);
      const deleting = api().delete(`/v1/domains/${domain.id}`);
      await untilBlockedBy(holder);
      const sending = crossingSend(domain.name);
      await eventually(async () => ((await advisoryWaiters(harness.db)) === 2 ? true : undefined));
      await holder.query('COMMIT');
      const [deleted, refused] = await Promise.all([deleting, sending]);
      expect({ delete: deleted.status, send: refused.status }).toEqual({ delete: 200, send: 422 });
      expect(refused.body.error).toMatchObject({ code: 'validation_error', message: expect.stringMatching(/^from: .*no longer a sending domain/) });
    });
    const stored = await harness.db.query(`SELECT count(*)::int AS n FROM emails.emails WHERE from_domain = $1 AND mode = 'live'`, [domain.name]);
    expect(stored.rows[0].n).toBe(0);
    // Added again, the name is a new domain (a new id), which the deletion does not hold.
    const again = await verifiedDomain(harness, domain.name);
    expect(again.id).not.toBe(domain.id);
    expect((await crossingSend(domain.name)).status).toBe(202);
  });

  it('refuses an Idempotency-Key batch crossing the deletion too, whose write is in a transaction of its own: 422 naming emails[i].from, nothing kept', async () => {
    const domain = await verifiedDomain(harness, uniqueDomain('idembatch'));
    const key = `cross-${domain.id}`;
    await withHolder(async (holder) => {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [SENDING_DOMAIN_LOCK_CLASS, domain.name]);
      const deleting = api().delete(`/v1/domains/${domain.id}`);
      await untilBlockedBy(holder);
      // The batch's transaction has claimed its key before it waits for the domain's lock.
      const email = { from: `hi@${domain.name}`, to: 'bob@example.test', subject: 'Crossed', text: 'Hi' };
      const sending = api().post('/v1/emails/batch', [email, email], { headers: { 'idempotency-key': key } });
      await eventually(async () => ((await advisoryWaiters(harness.db)) === 2 ? true : undefined));
      await holder.query('COMMIT');
      const [deleted, refused] = await Promise.all([deleting, sending]);
      expect({ delete: deleted.status, send: refused.status }).toEqual({ delete: 200, send: 422 });
      expect(refused.body.error).toMatchObject({ code: 'validation_error', message: expect.stringMatching(/^emails\[0\]\.from: .*no longer a sending domain/) });
    });
    const kept = await harness.db.query(
      `SELECT (SELECT count(*)::int FROM emails.emails WHERE from_domain = $1) AS emails, (SELECT count(*)::int FROM emails.idempotency_keys WHERE key = $2) AS keys`,
      [domain.name, key],
    );
    expect(kept.rows[0]).toEqual({ emails: 0, keys: 0 });
  });

  it('records nothing when its in-use check cannot answer in time: the DELETE is 503 and the domain goes on sending', async () => {
    const domain = await verifiedDomain(harness, uniqueDomain('slowcheck'));
    await withHolder(async (holder) => {
      // A send writing from the domain, longer than the deletion waits (DOMAIN_USAGE_TIMEOUT_MS, 2 s).
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock_shared($1, hashtext($2))', [SENDING_DOMAIN_LOCK_CLASS, domain.name]);
      const refused = await api().delete(`/v1/domains/${domain.id}`);
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('service_unavailable');
      await holder.query('COMMIT');
    });
    // Had the check gone on once the lock was free, it would have recorded a deletion that never happened.
    await eventually(async () => ((await advisoryWaiters(harness.db)) === 0 ? true : undefined));
    expect((await crossingSend(domain.name)).status).toBe(202);
    expect((await api().get(`/v1/domains/${domain.id}`)).body).toMatchObject({ status: 'verified' });
  });
});
