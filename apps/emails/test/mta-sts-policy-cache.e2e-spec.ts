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

  it('keeps a policy for its max_age, and a policy fetched again replaces it', async () => {
    await repository.save('example.test', policy);
    expect(await repository.find('example.test')).toEqual(policy);
    const next = { policyId: 'v2', mode: 'testing' as const, mx: ['mx2.example.test'], maxAgeSeconds: 3600 };
    await repository.save('example.test', next);
    expect(await repository.find('example.test')).toEqual(next);
    const [row] = await dataSource.query(`SELECT expires_at - fetched_at AS lifetime FROM emails.mta_sts_policies WHERE domain = 'example.test'`);
    expect(row.lifetime).toEqual({ hours: 1 });
    expect(await repository.find('other.test')).toBeNull();
  });

  it('reads no expired policy, and the purge drops expired ones only', async () => {
    await repository.save('expired.test', policy);
    await dataSource.query(`UPDATE emails.mta_sts_policies SET expires_at = now() - interval '1 second' WHERE domain = 'expired.test'`);
    expect(await repository.find('expired.test')).toBeNull();
    expect(await repository.purgeExpired()).toBe(1);
    const domains = await dataSource.query('SELECT domain FROM emails.mta_sts_policies ORDER BY domain');
    expect(domains).toEqual([{ domain: 'example.test' }]);
  });
});
