import { DataSource } from 'typeorm';
import { MigratedSchema, recordDeletesPerStatement, startMigratedSchema } from '@mailroom/testing';
import { EMAILS_SCHEMA } from '../src/database/data-source';
import { AppliedEventsRepository } from '../src/reports/applied-events.repository';
import { APPLIED_EVENTS_RETENTION_MS } from '@mailroom/outbox';
import { LAST_READ_MAX_AGE_MS } from '@mailroom/runtime';
import { SendingDomainFence } from '../src/domain-usage/sending-domain-fence';
import { SENDING_DOMAIN_DELETIONS_RETENTION_MS, SendingDomainDeletionsPurger } from '../src/domain-usage/sending-domain-deletions.purger';

const EXPIRED = 12_001;

/** The hourly purges of the emails schema's bookkeeping (the report consumers' applied event ids, the sending domains' deletions), against real Postgres. */
describe('AppliedEventsRepository and SendingDomainDeletionsPurger purgeOlderThan', () => {
  let database: MigratedSchema;
  let dataSource: DataSource;
  let deletedPerStatement: () => Promise<number[]>;

  beforeAll(async () => {
    database = await startMigratedSchema(EMAILS_SCHEMA);
    dataSource = database.dataSource;
    deletedPerStatement = await recordDeletesPerStatement(dataSource, 'emails.report_applied_events');
  });

  afterAll(() => database?.destroy());

  it('forgets the ids past the retention, of every consumer, in bounded statements, and keeps the recent ones', async () => {
    await dataSource.query(
      `INSERT INTO emails.report_applied_events (consumer, event_id, applied_at)
       SELECT CASE WHEN n % 2 = 0 THEN 'bounces' ELSE 'complaints' END, 'evt_old_' || n,
              now() - make_interval(secs => $2::double precision / 1000) - interval '1 hour' + n * interval '1 ms'
         FROM generate_series(1, $1) AS n`,
      [EXPIRED, APPLIED_EVENTS_RETENTION_MS],
    );
    await dataSource.query(
      `INSERT INTO emails.report_applied_events (consumer, event_id, applied_at)
       VALUES ('bounces', 'evt_recent', now() - make_interval(secs => $1::double precision / 1000) + interval '1 minute'),
              ('complaints', 'evt_now', now())`,
      [APPLIED_EVENTS_RETENTION_MS],
    );

    expect(await new AppliedEventsRepository(dataSource).purgeOlderThan(APPLIED_EVENTS_RETENTION_MS)).toBe(EXPIRED);

    const left = await dataSource.query('SELECT event_id FROM emails.report_applied_events ORDER BY event_id');
    expect(left).toEqual([{ event_id: 'evt_now' }, { event_id: 'evt_recent' }]);
    const statements = await deletedPerStatement();
    expect(statements.reduce((sum, deleted) => sum + deleted, 0)).toBe(EXPIRED);
    expect(Math.max(...statements)).toBeLessThanOrEqual(5000);
  });

  it('forgets sending domain deletions past their retention, while a recent one still refuses the sends that found its domain verified', async () => {
    // A send may carry a domain's status from the domains service's last answer for up to a day (it stands in while that service is away).
    expect(SENDING_DOMAIN_DELETIONS_RETENTION_MS).toBeGreaterThan(LAST_READ_MAX_AGE_MS);
    await dataSource.query(
      `INSERT INTO emails.sending_domain_deletions (domain_id, name, deleted_at)
       VALUES ('dom_old', 'old.test', now() - make_interval(secs => $1::double precision / 1000) - interval '1 minute'),
              ('dom_recent', 'recent.test', now() - make_interval(secs => $1::double precision / 1000) + interval '1 minute')`,
      [SENDING_DOMAIN_DELETIONS_RETENTION_MS],
    );

    expect(await new SendingDomainDeletionsPurger(dataSource).purgeOlderThan(SENDING_DOMAIN_DELETIONS_RETENTION_MS)).toBe(1);

    const parameters: unknown[] = [];
    const deletedAmong = new SendingDomainFence().deletedAmongQuery(new Map([['old.test', 'dom_old'], ['recent.test', 'dom_recent']]), parameters);
    expect(await dataSource.query(deletedAmong, parameters)).toEqual([{ id: 'dom_recent' }]);
  });
});
