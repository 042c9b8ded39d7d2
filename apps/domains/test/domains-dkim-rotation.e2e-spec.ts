import { Resolver } from 'node:dns/promises';
import { ClientProxy, ClientProxyFactory, Transport } from '@nestjs/microservices';
import { Client } from 'pg';
import { firstValueFrom } from 'rxjs';
import { DomainsSubjects, SenderIdentityReply } from '@mailroom/contracts';
import { eventually } from '@mailroom/testing';
import { DKIM_ZONE, DomainsHarness, publish, startDomainsHarness, stopDomainsHarness, uniqueDomain } from './domains-fixtures';

describe('domains: rotating a DKIM key', () => {
  let harness: DomainsHarness;
  let db: Client;
  let nats: ClientProxy;
  beforeAll(async () => {
    // A short pending schedule: a rotation's CNAME is looked for in the background within a second, while a verified
    // domain's own re-check (DOMAIN_VERIFIED_RECHECK_INTERVAL, 6 h) never comes during the suite.
    harness = await startDomainsHarness({ DOMAIN_RECHECK_SCHEDULE: '300ms' });
    harness.dns.forward(DKIM_ZONE, harness.dkimDns);
    db = new Client({ connectionString: harness.stack.databaseUrl });
    await db.connect();
    nats = ClientProxyFactory.create({ transport: Transport.NATS, options: { servers: [harness.stack.nats.url] } });
    await nats.connect();
  }, 60000);
  afterAll(async () => {
    await nats?.close();
    await db?.end();
    await stopDomainsHarness(harness);
  });

  const api = () => harness.stack.api;
  const zone = () => {
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([harness.dkimDns]);
    return resolver;
  };
  /** The key the service's own DKIM server answers at a CNAME target, or null for NXDOMAIN. */
  const keyAt = async (target: string): Promise<string | null> => {
    try {
      return (await zone().resolveTxt(target))[0].join('');
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOTFOUND') return null;
      throw error;
    }
  };
  const senderSelector = async (name: string) =>
    (await firstValueFrom(nats.send<SenderIdentityReply>(DomainsSubjects.senderIdentity, { name }))).identity?.dkim.selector;
  const verifiedDomain = async (prefix: string) => {
    const domain = (await api().post('/v1/domains', { name: uniqueDomain(prefix) })).body;
    publish(harness.dns, domain.name, domain.dnsRecords);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    return (await api().get(`/v1/domains/${domain.id}`)).body;
  };
  const rotate = (id: string) => api().post(`/v1/domains/${id}/dkim/rotate`);
  /** A pending key is promoted once every domains replica answers it, a minute after it was made (their key cache's time): that minute, passed. */
  const answeredEverywhere = (id: string) => db.query(`UPDATE domains.dkim_keys SET created_at = created_at - interval '1 minute' WHERE domain_id = $1 AND status = 'pending'`, [id]);
  const dkimOf = (domain: { dnsRecords: Array<{ purpose: string; host: string; value: string }> }) => domain.dnsRecords.find((record) => record.purpose === 'dkim')!;

  it('publishes a pending key under a new selector, signs with the old until its CNAME is found, then promotes it and retires the old one for a week', async () => {
    const domain = await verifiedDomain('rotate');
    const oldRecord = dkimOf(domain);
    const oldSelector = oldRecord.host.split('.')[0];
    expect(domain.dkimRotation).toBeNull();
    const oldKey = await keyAt(oldRecord.value);
    expect(oldKey).toMatch(/^v=DKIM1; k=rsa; p=/);

    const rotated = await rotate(domain.id);
    expect(rotated.status).toBe(200);
    const rotation = rotated.body.dkimRotation;
    expect(rotation).toMatchObject({ status: 'pending', record: { type: 'CNAME', purpose: 'dkim', verified: false } });
    expect(rotation.selector).toHaveLength(8);
    expect(rotation.selector).not.toBe(oldSelector);
    expect(rotation.record.host).toBe(`${rotation.selector}._domainkey`);
    expect(rotation.record.value).toBe(`${rotation.selector}-${domain.id.slice(4).toLowerCase()}.${DKIM_ZONE}`);
    expect(Date.parse(rotation.startedAt)).not.toBeNaN();
    // The active key's record and status are as they were: a pending rotation changes neither.
    expect(rotated.body).toMatchObject({ status: 'verified', dkimStatus: 'verified' });
    expect(rotated.body.dnsRecords).toHaveLength(3);
    expect(dkimOf(rotated.body)).toEqual(oldRecord);

    // Both keys answered, each at its own name; the zone export has both.
    const newKey = await keyAt(rotation.record.value);
    expect(newKey).toMatch(/^v=DKIM1; k=rsa; p=/);
    expect(newKey).not.toBe(oldKey);
    expect(await keyAt(oldRecord.value)).toBe(oldKey);
    const zoneFile: string = (await api().get('/v1/domains/dkim-zone')).body;
    expect(zoneFile).toContain(oldRecord.value.replace(`.${DKIM_ZONE}`, ''));
    expect(zoneFile).toContain(rotation.record.value.replace(`.${DKIM_ZONE}`, ''));

    // A verify before the new CNAME is published: still verified, the old key still the one that signs.
    const early = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(early.body.status).toBe('verified');
    expect((await api().get(`/v1/domains/${domain.id}`)).body.dkimRotation).toMatchObject({ selector: rotation.selector });
    expect(await senderSelector(domain.name)).toBe(oldSelector);

    // The CNAME found within the minute other replicas may still answer NXDOMAIN for the new key: not yet.
    harness.dns.set(`${rotation.record.host}.${domain.name}`, 'CNAME', rotation.record.value);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    expect((await api().get(`/v1/domains/${domain.id}`)).body.dkimRotation).toMatchObject({ selector: rotation.selector });
    expect(await senderSelector(domain.name)).toBe(oldSelector);

    await answeredEverywhere(domain.id);
    const promoted = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(promoted.body).toMatchObject({ status: 'verified', dkimStatus: 'verified' });
    const after = (await api().get(`/v1/domains/${domain.id}`)).body;
    expect(after.dkimRotation).toBeNull();
    expect(after.dnsRecords).toHaveLength(3);
    expect(dkimOf(after)).toMatchObject({ host: rotation.record.host, value: rotation.record.value, verified: true });
    expect(await senderSelector(domain.name)).toBe(rotation.selector);
    expect(await keyAt(rotation.record.value)).toBe(newKey);
    expect(await keyAt(oldRecord.value)).toBe(oldKey);

    const [retiring] = (await db.query(`SELECT selector, status, retire_after FROM domains.dkim_keys WHERE domain_id = $1`, [domain.id])).rows;
    expect(retiring).toMatchObject({ selector: oldSelector, status: 'retiring' });
    const week = (retiring.retire_after as Date).getTime() - Date.now();
    expect(week).toBeGreaterThan(7 * 24 * 3600_000 - 60_000);
    expect(week).toBeLessThanOrEqual(7 * 24 * 3600_000);
    const events = (await db.query(`SELECT type, data FROM domains.outbox WHERE data->>'id' = $1 AND type = 'domain.dkim_rotated'`, [domain.id])).rows;
    expect(events).toEqual([
      { type: 'domain.dkim_rotated', data: expect.objectContaining({ name: domain.name, selector: rotation.selector, previousSelector: oldSelector, previousKeyRetiresAt: (retiring.retire_after as Date).toISOString() }) },
    ]);

    // The week over: the background purge unpublishes the old key; the new one stays.
    await db.query(`UPDATE domains.dkim_keys SET retire_after = now() - interval '1 second' WHERE domain_id = $1 AND status = 'retiring'`, [domain.id]);
    await eventually(async () => (await keyAt(oldRecord.value)) === null, 10000);
    expect(await keyAt(rotation.record.value)).toBe(newKey);
    expect((await db.query(`SELECT status, public_key, private_key_sealed FROM domains.dkim_keys WHERE domain_id = $1`, [domain.id])).rows).toEqual([
      { status: 'retired', public_key: null, private_key_sealed: null },
    ]);

    // Neither selector the domain has had comes back.
    const again = (await rotate(domain.id)).body.dkimRotation;
    expect([oldSelector, rotation.selector]).not.toContain(again.selector);
  });

  it('promotes a pending key from the background checks, on the pending schedule, with no verify', async () => {
    const domain = await verifiedDomain('background');
    const rotation = (await rotate(domain.id)).body.dkimRotation;
    await answeredEverywhere(domain.id);
    harness.dns.set(`${rotation.record.host}.${domain.name}`, 'CNAME', rotation.record.value);
    await eventually(async () => (await api().get(`/v1/domains/${domain.id}`)).body.dkimRotation === null, 10000);
    expect(dkimOf((await api().get(`/v1/domains/${domain.id}`)).body).host).toBe(rotation.record.host);
    expect(await senderSelector(domain.name)).toBe(rotation.selector);
  });

  it('replaces the pending key when rotated again while pending: same selector and CNAME, a new key', async () => {
    const domain = await verifiedDomain('twice');
    const first = (await rotate(domain.id)).body.dkimRotation;
    const firstKey = await keyAt(first.record.value);
    const second = (await rotate(domain.id)).body.dkimRotation;
    expect(second.selector).toBe(first.selector);
    expect(second.record).toEqual(first.record);
    const secondKey = await keyAt(second.record.value);
    expect(secondKey).toMatch(/^v=DKIM1; k=rsa; p=/);
    expect(secondKey).not.toBe(firstKey);
    expect((await db.query(`SELECT count(*)::int AS n FROM domains.dkim_keys WHERE domain_id = $1`, [domain.id])).rows).toEqual([{ n: 1 }]);
  });

  it('refuses to rotate a domain that is not verified (409), and hides other domains from a restricted key (404)', async () => {
    const pending = (await api().post('/v1/domains', { name: uniqueDomain('unverified') })).body;
    const refused = await rotate(pending.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('only a verified domain') });
    expect((await db.query(`SELECT count(*)::int AS n FROM domains.dkim_keys WHERE domain_id = $1`, [pending.id])).rows).toEqual([{ n: 0 }]);

    const domain = await verifiedDomain('restricted');
    const key = await harness.stack.issueKey({ permissions: ['domains:*'], domainRestrictions: [pending.name] });
    const hidden = await api().withKey(key.key).post(`/v1/domains/${domain.id}/dkim/rotate`);
    expect(hidden.status).toBe(404);
    expect((await api().get(`/v1/domains/${domain.id}`)).body.dkimRotation).toBeNull();
  });
});
