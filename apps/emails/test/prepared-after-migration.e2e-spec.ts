import type { RequestContext } from '@mailroom/contracts';
import { runServiceMigrations, serviceDataSourceOptions } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { DataSource } from 'typeorm';
import { CountersRepository } from '../src/analytics/counters.repository';
import { EMAILS_SCHEMA } from '../src/database/data-source';
import { AttemptsRepository } from '../src/delivery/attempts.repository';
import { DeliveryRepository, DueRecipient } from '../src/delivery/delivery.repository';
import { summarizeRecipients } from '../src/delivery/status-summary';
import { SendingDomainFence } from '../src/domain-usage/sending-domain-fence';
import { parseEmailInput } from '../src/emails/email-input.parser';
import { EmailCountsRepository } from '../src/emails/email-counts.repository';
import { EmailWriter, everyWritten } from '../src/emails/email-writer';
import { EmailsRepository } from '../src/emails/emails.repository';

const OWNER = 'worker-1';
const ctx: RequestContext = { requestId: 'req_1', keyId: 'key_1', mode: 'test', permissions: ['*'], domainRestrictions: [] };

/**
 * A rolling upgrade: the new release's migration adds columns while the old
 * release's processes keep running. Their hot statements are prepared on
 * their connections, and a prepared statement whose result columns change
 * fails on that connection for good ("cached plan must not change result
 * type"). One connection here, so every statement runs where it was prepared.
 */
describe('the hot statements of a send and its delivery, after a migration adds columns', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let writer: EmailWriter;
  let delivery: DeliveryRepository;
  let attempts: AttemptsRepository;
  let counters: CountersRepository;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    await runServiceMigrations(databaseUrl, EMAILS_SCHEMA);
    dataSource = await new DataSource(serviceDataSourceOptions(databaseUrl, EMAILS_SCHEMA, { size: 1 })).initialize();
    // The counts repository serves reads only; a send never touches it.
    writer = new EmailWriter(new EmailsRepository(dataSource, {} as EmailCountsRepository), new SendingDomainFence());
    delivery = new DeliveryRepository(dataSource);
    attempts = new AttemptsRepository(dataSource);
    counters = new CountersRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  /** Sends one email and takes it through a claim, its recipients' read, its recorded delivery and its counters. */
  async function sendAndDeliver(to: string): Promise<string> {
    const now = new Date();
    const [{ email }] = everyWritten(await writer.writeAtomically([{ ctx, parsed: parseEmailInput({ from: 'hi@acme.test', to, subject: 'Hello', text: 'Hi' }, '', now), now }]));
    let due = new Map<string, DueRecipient[]>();
    const claimed = await delivery.claimDue(OWNER, 60_000, 10, [], async (manager, emails) => {
      due = await delivery.dueRecipients(manager, emails);
    });
    expect(claimed.map((row) => row.id)).toEqual([email.id]);
    expect(due.get(email.id)?.map((recipient) => recipient.address)).toEqual([to]);
    const recorded = await attempts.recordAttempts(OWNER, [
      {
        email: claimed[0],
        updates: [{ address: to, status: 'delivered', attempts: 1, smtpCode: 250, smtpReply: '250 ok', smtpHost: null, nextAttemptAt: null }],
        suppressions: [],
        events: [{ type: 'email.delivered', mode: 'test', data: { emailId: email.id } }],
        summarize: (recipients) => summarizeRecipients(recipients, new Date()),
      },
    ]);
    expect(recorded).toEqual(new Map([[email.id, new Set([to])]]));
    expect(await counters.applyMany([{ eventId: `evt_${email.id}`, mode: 'test', at: now, domain: 'acme.test', tags: [], metrics: ['delivered'] }])).toEqual([true]);
    return email.id;
  }

  it('still sends, claims, records and counts on the connection that prepared them', async () => {
    await sendAndDeliver('first@example.com');
    for (const table of ['emails', 'recipients', 'outbox', 'suppressions', 'analytics_counters', 'analytics_applied_events']) {
      await dataSource.query(`ALTER TABLE emails.${table} ADD COLUMN added_by_next_release int`);
    }
    const id = await sendAndDeliver('second@example.com');
    const [row] = await dataSource.query('SELECT status FROM emails.emails WHERE id = $1', [id]);
    expect(row).toEqual({ status: 'delivered' });
  });
});
