import { DataSource } from 'typeorm';
import { MigratedSchema, startMigratedSchema } from '@mailroom/testing';
import { EMAILS_SCHEMA } from '../src/database/data-source';
import { MtaStsRepository } from '../src/delivery/mta-sts/mta-sts.repository';

/** The MTA-STS policy cache in emails.mta_sts_policies, against a real Postgres. */
describe(MtaStsRepository.name, () => {
  let database: MigratedSchema;
  let dataSource: DataSource;
  let repository: MtaStsRepository;

  beforeAll(async () => {
    database = await startMigratedSchema(EMAILS_SCHEMA);
    dataSource = database.dataSource;
    repository = new MtaStsRepository(dataSource);
  });
  afterAll(() => database?.destroy());

  const policy = { policyId: 'v1', mode: 'enforce' as const, mx: ['mx.example.test', '*.example.net'], maxAgeSeconds: 86400 };
  /** What find() reads back: the policy, and when it was fetched. */
  const stored = (saved: object) => Object.assign({ fetchedAt: expect.any(Date) }, saved);

  it('keeps a policy for its max_age, and a policy fetched again replaces it', async () => {
    await repository.save('example.test', policy);
    expect(await repository.find('example.test')).toEqual(stored(policy));
    const next = { policyId: 'v2', mode: 'testing' as const, mx: ['mx2.example.test'], maxAgeSeconds: 3600 };
    await repository.save('example.test', next);
    expect(await repository.find('example.test')).toEqual(stored(next));
    const [row] = await dataSource.query(`SELECT expires_at - fetched_at AS lifetime FROM emails.mta_sts_policies WHERE domain = 'example.test'`);
    expect(row.lifetime).toEqual({ hours: 1 });
    expect(await repository.find('other.test')).toBeNull();
  });

  it('keeps a policy refreshed under the same id for its max_age from the refresh', async () => {
    await repository.save('refreshed.test', policy);
    await dataSource.query(`UPDATE emails.mta_sts_policies SET fetched_at = fetched_at - interval '12 hours', expires_at = expires_at - interval '12 hours' WHERE domain = 'refreshed.test'`);
    const before = await repository.find('refreshed.test');
    await repository.save('refreshed.test', policy);
    const after = await repository.find('refreshed.test');
    expect(after).toEqual(stored(policy));
    expect(after!.fetchedAt.getTime() - before!.fetchedAt.getTime()).toBeGreaterThanOrEqual(12 * 3600_000);
    const [row] = await dataSource.query(`SELECT expires_at - fetched_at AS lifetime, expires_at > now() + interval '23 hours' AS extended FROM emails.mta_sts_policies WHERE domain = 'refreshed.test'`);
    expect(row).toEqual({ lifetime: { days: 1 }, extended: true });
  });

  it('reads no expired policy, and the purge drops expired ones only', async () => {
    await repository.save('expired.test', policy);
    await dataSource.query(`UPDATE emails.mta_sts_policies SET expires_at = now() - interval '1 second' WHERE domain = 'expired.test'`);
    expect(await repository.find('expired.test')).toBeNull();
    expect(await repository.purgeExpired()).toBe(1);
    const domains = await dataSource.query('SELECT domain FROM emails.mta_sts_policies ORDER BY domain');
    expect(domains).toEqual([{ domain: 'example.test' }, { domain: 'refreshed.test' }]);
  });
});
