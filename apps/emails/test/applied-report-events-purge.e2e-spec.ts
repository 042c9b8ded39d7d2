import { DataSource } from 'typeorm';
import { MigratedSchema, recordDeletesPerStatement, startMigratedSchema } from '@mailroom/testing';
import { EMAILS_SCHEMA } from '../src/database/data-source';
import { AppliedEventsRepository } from '../src/reports/applied-events.repository';
import { APPLIED_EVENTS_RETENTION_MS } from '@mailroom/outbox';

const EXPIRED = 12_001;

/** The hourly purge of the report consumers' applied event ids, against real Postgres. */
describe('AppliedEventsRepository.purgeOlderThan', () => {
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
});
