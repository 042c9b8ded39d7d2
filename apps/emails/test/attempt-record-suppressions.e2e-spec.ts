import type { RequestContext } from '@mailroom/contracts';
import { MigratedSchema, startMigratedSchema, untilBlockedBy } from '@mailroom/testing';
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
import { AppliedEventsRepository } from '../src/reports/applied-events.repository';

const OWNER = 'worker-1';
const CTX: RequestContext = { requestId: 'req_1', keyId: 'key_1', mode: 'live', permissions: ['*'], domainRestrictions: [] };

/**
 * Recording attempts that bounced addresses writes their suppressions. Another replica recording a batch that
 * bounced the same addresses meanwhile must not deadlock with it: a record that fails is not written, the worker
 * leaves the email to its lease, and the message the server already took goes out a second time.
 */
describe('recorded attempts, the suppression list and bounce reports that cross them, against Postgres', () => {
  let schema: MigratedSchema;
  let dataSource: DataSource;
  let attempts: AttemptsRepository;

  beforeAll(async () => {
    schema = await startMigratedSchema(EMAILS_SCHEMA);
    dataSource = schema.dataSource;
    attempts = new AttemptsRepository(dataSource);
  });
  afterAll(() => schema?.destroy());

  /** A live email to `to`, claimed by OWNER. */
  const claimedEmailTo = async (to: string): Promise<ClaimedEmail> => {
    const created = buildNewEmail(parseEmailInput({ from: 'hi@acme.test', to, subject: 'Hello', text: 'Hi' }, '', new Date()), CTX, new Date(), new Set());
    await new EmailsRepository(dataSource, {} as EmailCountsRepository).insert(dataSource.manager, [created]);
    await dataSource.query(`UPDATE emails.emails SET lease_owner = $2, lease_expires_at = now() + interval '1 minute' WHERE id = $1`, [created.email.id, OWNER]);
    return { id: created.email.id, mode: 'live' } as ClaimedEmail;
  };

  const bouncedAttempt = (email: ClaimedEmail, address: string): AttemptRecord => ({
    email,
    updates: [{ address, status: 'bounced', attempts: 1, smtpCode: 550, smtpReply: '550 5.1.1 No such user', nextAttemptAt: null }],
    suppressions: [{ address, reason: 'bounce', details: '550 5.1.1 No such user' }],
    events: [],
    summarize: (recipients) => summarizeRecipients(recipients, new Date()),
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

  const deliveredAttempt = (email: ClaimedEmail, address: string): AttemptRecord => ({
    email,
    updates: [{ address, status: 'delivered', attempts: 1, smtpCode: 250, smtpReply: '250 ok', nextAttemptAt: null }],
    suppressions: [],
    events: [{ type: 'email.delivered', mode: 'live', data: { emailId: email.id, recipient: address } }],
    summarize: (recipients) => summarizeRecipients(recipients, new Date()),
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
});
