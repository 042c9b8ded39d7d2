import { EMAIL_LIMITS, RequestContext } from '@mailroom/contracts';
import { eventually, MigratedSchema, startMigratedSchema, untilBlockedBy } from '@mailroom/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { EMAILS_SCHEMA } from '../src/database/data-source';
import { AttemptRecord, AttemptsRepository } from '../src/delivery/attempts.repository';
import type { ClaimedEmail } from '../src/delivery/delivery.repository';
import { summarizeRecipients } from '../src/delivery/status-summary';
import { parseEmailInput } from '../src/emails/email-input.parser';
import { buildNewEmail } from '../src/emails/new-email.builder';
import { EmailsRepository } from '../src/emails/emails.repository';
import type { EmailCountsRepository } from '../src/emails/email-counts.repository';
import { BouncesRepository } from '../src/bounces/bounces.repository';
import { ComplaintsRepository } from '../src/complaints/complaints.repository';
import { AppliedEventsRepository } from '../src/reports/applied-events.repository';
import type { MailroomConfig } from '@mailroom/config';
import { AnalyticsProjector } from '../src/analytics/analytics-projector';
import { CountersRepository } from '../src/analytics/counters.repository';

const OWNER = 'worker-1';
const CTX: RequestContext = { requestId: 'req_1', keyId: 'key_1', mode: 'live', permissions: ['*'], domainRestrictions: [] };

/**
 * Recording attempts that bounced addresses writes their suppressions. Another replica recording a batch that
 * bounced the same addresses meanwhile must not deadlock with it: a record that fails is not written, the worker
 * leaves the email to its lease, and the message the server already took goes out a second time.
 */
describe('recorded attempts, the suppression list and reports that cross them, against Postgres', () => {
  let schema: MigratedSchema;
  let dataSource: DataSource;
  let attempts: AttemptsRepository;
  let complaints: ComplaintsRepository;

  beforeAll(async () => {
    schema = await startMigratedSchema(EMAILS_SCHEMA);
    dataSource = schema.dataSource;
    attempts = new AttemptsRepository(dataSource);
    complaints = new ComplaintsRepository(dataSource, new AppliedEventsRepository(dataSource));
  });
  afterAll(() => schema?.destroy());

  /** A live email to `to`, claimed by OWNER. */
  const claimedEmailTo = async (to: string): Promise<ClaimedEmail> => {
    const created = buildNewEmail(parseEmailInput({ from: 'hi@acme.test', to, subject: 'Hello', text: 'Hi' }, '', new Date()), CTX, new Date(), new Set());
    await new EmailsRepository(dataSource, {} as EmailCountsRepository).insertUnless(dataSource.manager, [created], { suppressedAddresses: new Map() });
    await dataSource.query(`UPDATE emails.emails SET lease_owner = $2, lease_expires_at = now() + interval '1 minute' WHERE id = $1`, [created.email.id, OWNER]);
    return { id: created.email.id, mode: 'live' } as ClaimedEmail;
  };

  /** One attempt at one recipient of `email`, with what it adds beside the recipient's new state. */
  const attemptAt = (email: ClaimedEmail, update: AttemptRecord['updates'][number], extra: Partial<Pick<AttemptRecord, 'suppressions' | 'events'>> = {}): AttemptRecord => ({
    email,
    updates: [update],
    suppressions: [],
    events: [],
    summarize: (recipients) => summarizeRecipients(recipients, new Date()),
    ...extra,
  });

  const bouncedAttempt = (email: ClaimedEmail, address: string): AttemptRecord =>
    attemptAt(email, { address, status: 'bounced', attempts: 1, smtpCode: 550, smtpReply: '550 5.1.1 No such user', smtpHost: 'mx.example.test', nextAttemptAt: null }, {
      suppressions: [{ address, reason: 'bounce', details: '550 5.1.1 No such user' }],
    });

  it('writes the suppressions of a batch in one order, so a transaction adding the same addresses in another order waits instead of deadlocking', async () => {
    // The batch names zed@ before amy@, as the emails of a batch fall.
    const first = await claimedEmailTo('zed@example.test');
    const second = await claimedEmailTo('amy@example.test');
    const other = new Client({ connectionString: (dataSource.options as { url: string }).url });
    await other.connect();
    try {
      await other.query('BEGIN');
      // Another replica's record of two emails to the same addresses, in address order. This session is never the
      // one Postgres picks to break a deadlock (it checks the record under test first).
      await other.query(`SET LOCAL deadlock_timeout = '60s'`);
      await other.query(`INSERT INTO emails.suppressions (mode, address, reason) VALUES ('live', 'amy@example.test', 'bounce') ON CONFLICT DO NOTHING`);
      const recording = attempts.recordAttempts(OWNER, [bouncedAttempt(first, 'zed@example.test'), bouncedAttempt(second, 'amy@example.test')]);
      const settled = recording.then(
        () => 'recorded',
        (error: Error) => error.message,
      );
      await untilBlockedBy(other);
      // The other record goes on to zed@, which the record under test, had it gone in batch order, would hold.
      const otherInsert = other.query(`INSERT INTO emails.suppressions (mode, address, reason) VALUES ('live', 'zed@example.test', 'bounce') ON CONFLICT DO NOTHING`);
      await Promise.race([otherInsert, settled]);
      await other.query('COMMIT').catch(() => undefined);
      await otherInsert.catch(() => undefined);
      expect(await settled).toBe('recorded');
      expect(await recording).toEqual(
        new Map([
          [first.id, new Set(['zed@example.test'])],
          [second.id, new Set(['amy@example.test'])],
        ]),
      );
    } finally {
      await other.end();
    }
    const recipients = await dataSource.query(`SELECT address, status FROM emails.recipients WHERE email_id = ANY($1) ORDER BY address`, [[first.id, second.id]]);
    expect(recipients).toEqual([
      { address: 'amy@example.test', status: 'bounced' },
      { address: 'zed@example.test', status: 'bounced' },
    ]);
  });

  it("keeps each recipient's last attempts, oldest first, and logs none for a recipient found suppressed when its turn came", async () => {
    const email = await claimedEmailTo('retried@example.test');
    const total = EMAIL_LIMITS.attemptLogLength + 2;
    for (let attempt = 1; attempt <= total; attempt += 1) {
      await dataSource.query(`UPDATE emails.emails SET lease_owner = $2, lease_expires_at = now() + interval '1 minute' WHERE id = $1`, [email.id, OWNER]);
      const reply = `451 4.3.0 try again (${attempt})`;
      await attempts.recordAttempts(OWNER, [attemptAt(email, { address: 'retried@example.test', status: 'deferred', attempts: attempt, smtpCode: 451, smtpReply: reply, smtpHost: 'mx.example.test', nextAttemptAt: new Date(Date.now() + 60_000) })]);
    }
    const logOf = async () => (await dataSource.query('SELECT attempt_log FROM emails.recipients WHERE email_id = $1', [email.id]))[0].attempt_log;
    const log = await logOf();
    expect(log.map((entry: { attempt: number }) => entry.attempt)).toEqual(Array.from({ length: EMAIL_LIMITS.attemptLogLength }, (_, index) => total - EMAIL_LIMITS.attemptLogLength + 1 + index));
    expect(log[log.length - 1]).toEqual({ attempt: total, at: expect.any(String), status: 'deferred', smtpCode: 451, smtpReply: `451 4.3.0 try again (${total})`, host: 'mx.example.test' });

    // Suppressed meanwhile: the recipient is settled without an attempt, and its log stays as it was.
    await dataSource.query(`UPDATE emails.emails SET lease_owner = $2, lease_expires_at = now() + interval '1 minute' WHERE id = $1`, [email.id, OWNER]);
    await attempts.recordAttempts(OWNER, [attemptAt(email, { address: 'retried@example.test', status: 'suppressed', attempts: total, smtpCode: null, smtpReply: 'on the suppression list', smtpHost: null, nextAttemptAt: null })]);
    expect(await dataSource.query('SELECT status FROM emails.recipients WHERE email_id = $1', [email.id])).toEqual([{ status: 'suppressed' }]);
    expect(await logOf()).toEqual(log);
  });

  const deliveredAttempt = (email: ClaimedEmail, address: string): AttemptRecord =>
    attemptAt(email, { address, status: 'delivered', attempts: 1, smtpCode: 250, smtpReply: '250 ok', smtpHost: 'mx.example.test', nextAttemptAt: null }, {
      events: [{ type: 'email.delivered', mode: 'live', data: { emailId: email.id, recipient: address } }],
    });

  it('answers which outcomes it applied: none for a recipient a bounce report settled while the attempt was in flight', async () => {
    const email = await claimedEmailTo('settled@example.test');
    const reply = '550 5.1.1 user unknown';
    await new BouncesRepository(dataSource, new AppliedEventsRepository(dataSource)).apply(`evt_bounce_${email.id}`, 'live', {
      address: 'settled@example.test',
      emailId: email.id,
      smtpCode: 550,
      smtpReply: reply,
      details: reply,
      suppress: true,
    });
    // The delivery metric counts from this answer: the dropped delivery must not show as one.
    expect(await attempts.recordAttempts(OWNER, [deliveredAttempt(email, 'settled@example.test')])).toEqual(new Map([[email.id, new Set()]]));
    expect(await dataSource.query('SELECT status FROM emails.recipients WHERE email_id = $1', [email.id])).toEqual([{ status: 'bounced' }]);
  });

  /** The email's and its recipient's complaint marks, the address's entry and the email's events: all a complaint changes. */
  const afterComplaint = async (email: ClaimedEmail, address: string) => {
    const [marks] = await dataSource.query(
      `SELECT e.status, e.complained_at IS NOT NULL AS email_marked, r.complained_at IS NOT NULL AS recipient_marked
         FROM emails.emails e JOIN emails.recipients r ON r.email_id = e.id WHERE e.id = $1`,
      [email.id],
    );
    const [entry] = await dataSource.query(`SELECT reason FROM emails.suppressions WHERE mode = 'live' AND address = $1`, [address]);
    const events = await dataSource.query(`SELECT type FROM emails.outbox WHERE data->>'emailId' = $1 AND type <> 'email.queued' ORDER BY seq`, [email.id]);
    return { entry, events: events.map((event: { type: string }) => event.type), ...marks };
  };
  const complainedAndDelivered = { status: 'delivered', email_marked: true, recipient_marked: true, entry: { reason: 'complaint' }, events: ['email.delivered'] };

  // A reader complains of mail that reached them, so a complaint that finds its recipient still waiting is about
  // the attempt in flight, whose 250 is not written yet. It suppressed the address and marked nothing, and the
  // attempt then wrote `delivered`: the email never read as complained of.
  it('marks the email complained of whichever is written first, the complaint or the attempt the server accepted', async () => {
    const attemptFirst = await claimedEmailTo('attempt.first@example.test');
    expect([...(await attempts.recordAttempts(OWNER, [deliveredAttempt(attemptFirst, 'attempt.first@example.test')])).keys()]).toEqual([attemptFirst.id]);
    await complaints.apply(`evt_c_${attemptFirst.id}`, 'live', attemptFirst.id, 'attempt.first@example.test', 'ARF');

    const complaintFirst = await claimedEmailTo('complaint.first@example.test');
    await complaints.apply(`evt_c_${complaintFirst.id}`, 'live', complaintFirst.id, 'complaint.first@example.test', 'ARF');
    expect(await dataSource.query('SELECT complained_at FROM emails.emails WHERE id = $1', [complaintFirst.id])).toEqual([{ complained_at: null }]);
    await attempts.recordAttempts(OWNER, [deliveredAttempt(complaintFirst, 'complaint.first@example.test')]);

    expect(await afterComplaint(attemptFirst, 'attempt.first@example.test')).toEqual(complainedAndDelivered);
    expect(await afterComplaint(complaintFirst, 'complaint.first@example.test')).toEqual(complainedAndDelivered);
  });

  it('marks nothing for a complaint that found its recipient waiting when the attempt did not reach the reader after all', async () => {
    const email = await claimedEmailTo('never.reached@example.test');
    await complaints.apply(`evt_c_${email.id}`, 'live', email.id, 'never.reached@example.test', 'ARF');
    await attempts.recordAttempts(OWNER, [bouncedAttempt(email, 'never.reached@example.test')]);
    const [marks] = await dataSource.query('SELECT status, complained_at FROM emails.emails WHERE id = $1', [email.id]);
    expect(marks).toEqual({ status: 'bounced', complained_at: null });
  });

  it('marks nothing for a complaint about a recipient waiting with no attempt in flight, so a later delivery does not mark the email', async () => {
    const email = await claimedEmailTo('between.retries@example.test');
    // Between two attempts: no worker holds the email.
    await dataSource.query('UPDATE emails.emails SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1', [email.id]);
    await complaints.apply(`evt_c_${email.id}`, 'live', email.id, 'between.retries@example.test', 'ARF');
    // The suppression lifted by hand, and the next attempt delivers.
    await dataSource.query(`DELETE FROM emails.suppressions WHERE mode = 'live' AND address = $1`, ['between.retries@example.test']);
    await dataSource.query(`UPDATE emails.emails SET lease_owner = $2, lease_expires_at = now() + interval '1 minute' WHERE id = $1`, [email.id, OWNER]);
    await attempts.recordAttempts(OWNER, [deliveredAttempt(email, 'between.retries@example.test')]);
    expect(await afterComplaint(email, 'between.retries@example.test')).toEqual({
      status: 'delivered',
      email_marked: false,
      recipient_marked: false,
      entry: undefined,
      events: ['email.delivered'],
    });
  });

  /** The complaints counted in analytics for acme.test, every email of this file's. */
  const complaintsCounted = async (): Promise<number> => {
    const [row] = await dataSource.query(
      `SELECT coalesce(sum(value), 0)::int AS n FROM emails.analytics_counters WHERE mode = 'live' AND domain = 'acme.test' AND tag = '' AND metric = 'complained'`,
    );
    return row.n;
  };

  /**
   * A reported complaint as both of its consumers take it off the stream: the complaints consumer once, and the
   * analytics consumer now and, while its handler fails, again at every later call (JetStream redelivers it).
   */
  const publishedComplaint = async (email: ClaimedEmail, address: string) => {
    const id = `evt_c_${email.id}`;
    await complaints.apply(id, 'live', email.id, address, 'ARF');
    const projector = new AnalyticsProjector(new CountersRepository(dataSource), {} as MailroomConfig);
    const event = { id, type: 'email.complained', createdAt: new Date().toISOString(), mode: 'live' as const, data: { emailId: email.id, recipient: address } };
    let acked = false;
    const redeliver = async () => {
      if (!acked) acked = await projector.apply(event).then(() => true, () => false);
    };
    await redeliver();
    return redeliver;
  };

  const deferredAttempt = (email: ClaimedEmail, address: string): AttemptRecord =>
    attemptAt(email, { address, status: 'deferred', attempts: 1, smtpCode: null, smtpReply: 'connection lost after the message: it may have been delivered', smtpHost: 'mx.example.test', nextAttemptAt: new Date(Date.now() + 60_000) });

  // Analytics reads the recipient when the complaint reaches it: one still waiting on its attempt in flight read as
  // never sent to, so the complaint was acknowledged uncounted, and the attempt's record then marked the email.
  it('counts a complaint in analytics exactly when it marks the email, whichever is written first, the complaint or the attempt', async () => {
    const attemptFirst = await claimedEmailTo('counted.after@example.test');
    await attempts.recordAttempts(OWNER, [deliveredAttempt(attemptFirst, 'counted.after@example.test')]);
    const before = await complaintsCounted();
    await publishedComplaint(attemptFirst, 'counted.after@example.test');
    expect(await complaintsCounted()).toBe(before + 1);

    const complaintFirst = await claimedEmailTo('counted.before@example.test');
    const redeliverFirst = await publishedComplaint(complaintFirst, 'counted.before@example.test');
    await attempts.recordAttempts(OWNER, [deliveredAttempt(complaintFirst, 'counted.before@example.test')]);
    await redeliverFirst();
    expect(await complaintsCounted()).toBe(before + 2);
    expect(await afterComplaint(complaintFirst, 'counted.before@example.test')).toEqual(complainedAndDelivered);

    // The attempt in flight did not reach the reader: the email is not marked, and nothing is counted.
    const refused = await claimedEmailTo('counted.never@example.test');
    const redeliverRefused = await publishedComplaint(refused, 'counted.never@example.test');
    await attempts.recordAttempts(OWNER, [bouncedAttempt(refused, 'counted.never@example.test')]);
    await redeliverRefused();
    await redeliverRefused();
    expect(await complaintsCounted()).toBe(before + 2);

    // The attempt in flight lost its connection after the message (it may have reached the reader): the recipient
    // keeps its mark and the delivery that follows (the suppression lifted by hand) marks the email, which is when
    // the complaint counts.
    const retried = await claimedEmailTo('counted.retried@example.test');
    const redeliverRetried = await publishedComplaint(retried, 'counted.retried@example.test');
    await attempts.recordAttempts(OWNER, [deferredAttempt(retried, 'counted.retried@example.test')]);
    await redeliverRetried();
    expect(await complaintsCounted()).toBe(before + 2);
    await dataSource.query(`DELETE FROM emails.suppressions WHERE mode = 'live' AND address = $1`, ['counted.retried@example.test']);
    await dataSource.query(`UPDATE emails.emails SET lease_owner = $2, lease_expires_at = now() + interval '1 minute' WHERE id = $1`, [retried.id, OWNER]);
    await attempts.recordAttempts(OWNER, [deliveredAttempt(retried, 'counted.retried@example.test')]);
    await redeliverRetried();
    expect(await dataSource.query('SELECT complained_at IS NOT NULL AS marked FROM emails.emails WHERE id = $1', [retried.id])).toEqual([{ marked: true }]);
    expect(await complaintsCounted()).toBe(before + 3);
  });

  it('marks the email when the complaint comes while the attempt is being written', async () => {
    const email = await claimedEmailTo('mid.write@example.test');
    const url = (dataSource.options as { url: string }).url;
    // The attempt is written on this test's one pooled connection; the complaint needs a connection of its own.
    const reports = new DataSource({ ...dataSource.options } as typeof dataSource.options);
    await reports.initialize();
    const holder = new Client({ connectionString: url });
    await holder.connect();
    try {
      // Holds the recipient's row, so the record stops after locking its email and before writing the recipient.
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM emails.recipients WHERE email_id = $1 FOR UPDATE', [email.id]);
      const recording = attempts.recordAttempts(OWNER, [deliveredAttempt(email, 'mid.write@example.test')]);
      await untilBlockedBy(holder);
      const complaint = new ComplaintsRepository(reports, new AppliedEventsRepository(reports)).apply(`evt_c_${email.id}`, 'live', email.id, 'mid.write@example.test', 'ARF');
      // Either the complaint is done (it did not wait for the attempt) or it waits as the record does.
      const waiters = async () =>
        (await holder.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).rows[0].n >= 2 || undefined;
      await Promise.race([complaint, eventually(waiters, 15000)]);
      await holder.query('COMMIT');
      await Promise.all([recording, complaint]);
    } finally {
      await holder.end();
      await reports.destroy();
    }
    expect(await afterComplaint(email, 'mid.write@example.test')).toEqual(complainedAndDelivered);
  });
});
