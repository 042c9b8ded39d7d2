import { Resolver } from 'node:dns/promises';
import { Client } from 'pg';
import { eventually } from '@mailroom/testing';
import { DKIM_ZONE, DomainsHarness, publish, SPF_INCLUDE, startDomainsHarness, stopDomainsHarness, uniqueDomain } from './domains-fixtures';

// Longer than a few overlapping verifies take on a loaded machine, so they are one look at missing records.
const FAILURE_CONFIRMATION_MS = 2000;

describe('domains: verification through real DNS', () => {
  let harness: DomainsHarness;
  let db: Client;
  beforeAll(async () => {
    harness = await startDomainsHarness({ DOMAIN_FAILURE_CONFIRMATION: `${FAILURE_CONFIRMATION_MS}ms` });
    // As a recursive resolver reaches the delegated DKIM zone: names in it are answered by the service's own server.
    harness.dns.forward(DKIM_ZONE, harness.dkimDns);
    db = new Client({ connectionString: harness.stack.databaseUrl });
    await db.connect();
  }, 60000);
  afterAll(async () => {
    await db?.end();
    await stopDomainsHarness(harness);
  });

  const api = () => harness.stack.api;
  const addDomain = async (prefix?: string) => (await api().post('/v1/domains', { name: uniqueDomain(prefix) })).body;
  const eventsOf = async (id: string) =>
    (await db.query(`SELECT type, data, published_at FROM domains.outbox WHERE data->>'id' = $1 ORDER BY seq`, [id])).rows;
  /** Waits out DOMAIN_FAILURE_CONFIRMATION from when the domain's records were first found missing. */
  const confirmationOver = async (id: string) => {
    const [row] = (await db.query(`SELECT records_missing_since FROM domains.domains WHERE id = $1`, [id])).rows;
    expect(row.records_missing_since).not.toBeNull();
    const end = (row.records_missing_since as Date).getTime() + FAILURE_CONFIRMATION_MS;
    await eventually(() => Date.now() >= end, FAILURE_CONFIRMATION_MS + 5000);
  };

  it('moves pending → verified when all three records are published, and emits domain.verified', async () => {
    const domain = await addDomain('verified');
    publish(harness.dns, domain.name, domain.dnsRecords);
    const response = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: domain.id, object: 'domain', name: domain.name, status: 'verified', spfStatus: 'verified', dkimStatus: 'verified', dmarcStatus: 'verified' });
    expect(new Date(response.body.verifiedAt).toISOString()).toBe(response.body.verifiedAt);
    expect(response.body.missingRecords).toBeUndefined();
    expect(response.body.dnsErrors).toBeUndefined();

    const got = (await api().get(`/v1/domains/${domain.id}`)).body;
    expect(got.status).toBe('verified');
    expect(got.verifiedAt).toBe(response.body.verifiedAt);
    expect(got.dnsRecords.map((record: { verified: boolean }) => record.verified)).toEqual([true, true, true]);
    // The list's status filter moves it with its status.
    const statusesUnder = async (status: string) => {
      const items: Array<{ id: string; status: string }> = (await api().get(`/v1/domains?status=${status}&limit=100`)).body.data;
      return { has: items.some((item) => item.id === domain.id), statuses: [...new Set(items.map((item) => item.status))] };
    };
    expect(await statusesUnder('verified')).toEqual({ has: true, statuses: ['verified'] });
    expect((await statusesUnder('pending')).has).toBe(false);

    // The outbox relay publishes the event to JetStream, and marks it published.
    const events = await eventually(async () => {
      const rows = await eventsOf(domain.id);
      return rows.length === 1 && rows[0].published_at ? rows : undefined;
    });
    expect(events[0]).toMatchObject({ type: 'domain.verified', data: { id: domain.id, name: domain.name, status: 'verified' } });

    // Verifying again changes nothing and emits nothing new.
    const again = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(again.body.verifiedAt).toBe(response.body.verifiedAt);
    expect(await eventsOf(domain.id)).toHaveLength(1);
  });

  it('accepts an SPF record with other mechanisms, a DMARC policy of its own and case/trailing-dot differences in the CNAME', async () => {
    const domain = await addDomain('variants');
    const [, dkim] = domain.dnsRecords;
    harness.dns.set(domain.name, 'TXT', ['google-site-verification=abc', `v=spf1 ip4:192.0.2.0/24 include:${SPF_INCLUDE} include:_spf.google.com -all`]);
    harness.dns.set(`${dkim.host}.${domain.name}`, 'CNAME', `${dkim.value.toUpperCase()}.`);
    harness.dns.set(`_dmarc.${domain.name}`, 'TXT', ['v=DMARC1; p=reject; rua=mailto:dmarc@example.com']);
    const response = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(response.body.status).toBe('verified');
  });

  it('keeps a domain with partial records pending, with the right sub-statuses and missingRecords', async () => {
    const domain = await addDomain('partial');
    publish(harness.dns, domain.name, domain.dnsRecords, ['spf']);
    const response = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'pending', spfStatus: 'verified', dkimStatus: 'pending', dmarcStatus: 'pending' });
    expect(response.body.verifiedAt).toBeUndefined();
    expect(response.body.missingRecords).toEqual([domain.dnsRecords[1], domain.dnsRecords[2]]);
    const got = (await api().get(`/v1/domains/${domain.id}`)).body;
    expect(got.dnsRecords.map((record: { verified: boolean }) => record.verified)).toEqual([true, false, false]);

    // Publishing the rest later verifies it.
    publish(harness.dns, domain.name, domain.dnsRecords, ['dkim', 'dmarc']);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
  });

  it('treats a DNS timeout as a DNS failure: nothing flips, and the response says so', async () => {
    const domain = await addDomain('timeout');
    publish(harness.dns, domain.name, domain.dnsRecords);
    harness.dns.delay(`_dmarc.${domain.name}`, Infinity);
    const response = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'pending', spfStatus: 'pending', dkimStatus: 'pending', dmarcStatus: 'pending' });
    expect(response.body.dnsErrors).toEqual([{ purpose: 'dmarc', host: `_dmarc.${domain.name}`, error: 'timeout' }]);
    expect(response.body.missingRecords).toBeUndefined();
    expect((await api().get(`/v1/domains/${domain.id}`)).body.spfStatus).toBe('pending');
  });

  it('lists as missing only records whose sub-status it shows pending, when a DNS failure left the sub-statuses as they were', async () => {
    const domain = await addDomain('stale-substatus');
    publish(harness.dns, domain.name, domain.dnsRecords, ['spf']);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body).toMatchObject({ status: 'pending', spfStatus: 'verified' });
    // The SPF record goes, and the DMARC lookup times out: the check is inconclusive, so no status changes.
    harness.dns.clear(domain.name);
    harness.dns.delay(`_dmarc.${domain.name}`, Infinity);
    const response = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'pending', spfStatus: 'verified', dkimStatus: 'pending', dmarcStatus: 'pending' });
    expect(response.body.dnsErrors).toEqual([{ purpose: 'dmarc', host: `_dmarc.${domain.name}`, error: 'timeout' }]);
    // The interface: the sub-status of each missing record is pending. The answer listed SPF as missing beside spfStatus: verified.
    expect(response.body.missingRecords).toEqual([domain.dnsRecords[1]]);
    const got = (await api().get(`/v1/domains/${domain.id}`)).body;
    expect(got.dnsRecords.map((record: { verified: boolean }) => record.verified)).toEqual([true, false, false]);
  });

  it('does not fail a verified domain because of a SERVFAIL', async () => {
    const domain = await addDomain('servfail');
    publish(harness.dns, domain.name, domain.dnsRecords);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    harness.dns.servfail(domain.name);
    const response = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(response.body).toMatchObject({ status: 'verified', spfStatus: 'verified' });
    expect(response.body.dnsErrors).toEqual([{ purpose: 'spf', host: domain.name, error: 'servfail' }]);
    expect((await eventsOf(domain.id)).map((row) => row.type)).toEqual(['domain.verified']);
  });

  it('does not accept a DKIM CNAME that points elsewhere', async () => {
    const domain = await addDomain('wrongcname');
    publish(harness.dns, domain.name, domain.dnsRecords);
    const [, dkim] = domain.dnsRecords;
    harness.dns.set(`${dkim.host}.${domain.name}`, 'CNAME', 'mr000000-someone-else.dkim.example.net');
    const response = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(response.body).toMatchObject({ status: 'pending', spfStatus: 'verified', dkimStatus: 'pending', dmarcStatus: 'verified' });
    expect(response.body.missingRecords).toEqual([dkim]);
    expect(response.body.recordProblems).toEqual([
      { purpose: 'dkim', host: `${dkim.host}.${domain.name}`, problem: expect.stringContaining('mr000000-someone-else.dkim.example.net') },
    ]);
  });

  it('accepts the DKIM key a verifier reaches through a CNAME chain, or published as TXT by a host that flattens CNAMEs; no other key, nor ours beside another TXT or under tags verifiers cannot use', async () => {
    const [chained, flattened, otherKey] = [await addDomain('dkimchain'), await addDomain('dkimflat'), await addDomain('dkimother')];
    // The key record as the service's DKIM server answers it for the domain's CNAME target.
    const keyRecordOf = async (domain: { dnsRecords: Array<{ value: string }> }) => {
      const resolver = new Resolver({ timeout: 2000, tries: 1 });
      resolver.setServers([harness.dkimDns]);
      return (await resolver.resolveTxt(domain.dnsRecords[1].value))[0].join('');
    };
    const selectorHost = (domain: { name: string; dnsRecords: Array<{ host: string }> }) => `${domain.dnsRecords[1].host}.${domain.name}`;

    publish(harness.dns, chained.name, chained.dnsRecords, ['spf', 'dmarc']);
    harness.dns.set(selectorHost(chained), 'CNAME', `dkim-alias.${chained.name}`);
    harness.dns.set(`dkim-alias.${chained.name}`, 'CNAME', chained.dnsRecords[1].value);
    expect((await api().post(`/v1/domains/${chained.id}/verify`)).body).toMatchObject({ status: 'verified', dkimStatus: 'verified' });

    publish(harness.dns, flattened.name, flattened.dnsRecords, ['spf', 'dmarc']);
    harness.dns.set(selectorHost(flattened), 'TXT', [await keyRecordOf(flattened)]);
    expect((await api().post(`/v1/domains/${flattened.id}/verify`)).body).toMatchObject({ status: 'verified', dkimStatus: 'verified' });

    publish(harness.dns, otherKey.name, otherKey.dnsRecords, ['spf', 'dmarc']);
    harness.dns.set(selectorHost(otherKey), 'TXT', [await keyRecordOf(flattened)]);
    const refused = (await api().post(`/v1/domains/${otherKey.id}/verify`)).body;
    expect(refused).toMatchObject({ status: 'pending', dkimStatus: 'pending' });
    expect(refused.missingRecords).toEqual([otherKey.dnsRecords[1]]);

    // Ours beside another TXT at the selector name: which one a verifier reads is undefined (RFC 6376 §3.6.2.2).
    const beside = await addDomain('dkimbeside');
    publish(harness.dns, beside.name, beside.dnsRecords, ['spf', 'dmarc']);
    harness.dns.set(selectorHost(beside), 'TXT', [await keyRecordOf(flattened), await keyRecordOf(beside)]);
    const ambiguous = (await api().post(`/v1/domains/${beside.id}/verify`)).body;
    expect(ambiguous).toMatchObject({ status: 'pending', dkimStatus: 'pending' });
    expect(ambiguous.recordProblems).toEqual([{ purpose: 'dkim', host: selectorHost(beside), problem: expect.stringContaining('found 2 TXT records') }]);

    // Our key with tags that keep verifiers from using it for rsa-sha256 signatures (RFC 6376 §3.6.1).
    const sha1Only = await addDomain('dkimsha1');
    publish(harness.dns, sha1Only.name, sha1Only.dnsRecords, ['spf', 'dmarc']);
    harness.dns.set(selectorHost(sha1Only), 'TXT', [(await keyRecordOf(sha1Only)).replace('k=rsa;', 'k=rsa; h=sha1;')]);
    const unusable = (await api().post(`/v1/domains/${sha1Only.id}/verify`)).body;
    expect(unusable).toMatchObject({ status: 'pending', dkimStatus: 'pending' });
    expect(unusable.recordProblems).toEqual([{ purpose: 'dkim', host: selectorHost(sha1Only), problem: expect.stringContaining('h=sha1 does not allow sha256') }]);
  });

  it('does not accept two SPF records, even if one is right', async () => {
    const domain = await addDomain('twospf');
    publish(harness.dns, domain.name, domain.dnsRecords);
    harness.dns.set(domain.name, 'TXT', [`v=spf1 include:${SPF_INCLUDE} ~all`, 'v=spf1 include:_spf.other.example -all']);
    const response = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(response.body).toMatchObject({ status: 'pending', spfStatus: 'pending', dkimStatus: 'verified', dmarcStatus: 'verified' });
    expect(response.body.missingRecords).toEqual([domain.dnsRecords[0]]);
    expect(response.body.recordProblems[0]).toMatchObject({ purpose: 'spf', problem: expect.stringContaining('2 SPF records') });
  });

  it('does not accept an SPF record without our include', async () => {
    const domain = await addDomain('noinclude');
    publish(harness.dns, domain.name, domain.dnsRecords);
    harness.dns.set(domain.name, 'TXT', ['v=spf1 include:_spf.other.example -all']);
    // Followed as receivers do (RFC 7208 §5.2); it does not lead to ours either.
    harness.dns.set('_spf.other.example', 'TXT', ['v=spf1 ip4:192.0.2.0/24 -all']);
    const response = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(response.body.spfStatus).toBe('pending');
    expect(response.body.recordProblems[0].problem).toContain(`include:${SPF_INCLUDE}`);
  });

  it('accepts our include written with + or a trailing dot, in any case', async () => {
    const domain = await addDomain('spfforms');
    publish(harness.dns, domain.name, domain.dnsRecords);
    for (const record of [`v=spf1 +include:${SPF_INCLUDE} -all`, `v=spf1 include:${SPF_INCLUDE}. ~all`, `V=SPF1 INCLUDE:${SPF_INCLUDE.toUpperCase()} -ALL`]) {
      harness.dns.set(domain.name, 'TXT', [record]);
      expect({ record, spfStatus: (await api().post(`/v1/domains/${domain.id}/verify`)).body.spfStatus }).toEqual({ record, spfStatus: 'verified' });
    }
  });

  it('does not accept our include where it never takes effect: after all, with a non-pass qualifier, or inside another term', async () => {
    const domain = await addDomain('spfineffective');
    publish(harness.dns, domain.name, domain.dnsRecords);
    const cases = [
      { record: `v=spf1 -all include:${SPF_INCLUDE}`, problem: 'after -all' },
      { record: `v=spf1 ~all +include:${SPF_INCLUDE}`, problem: 'after ~all' },
      { record: `v=spf1 ?include:${SPF_INCLUDE} -all`, problem: 'qualifier ?' },
      { record: `v=spf1 ~include:${SPF_INCLUDE} -all`, problem: 'qualifier ~' },
      // Not ours, so followed as receivers do: it names no SPF record, which is a permanent error (RFC 7208 §5.2).
      { record: `v=spf1 include:${SPF_INCLUDE}.evil.example -all`, problem: `include:${SPF_INCLUDE}.evil.example leads to ${SPF_INCLUDE}.evil.example, which has no SPF record` },
      { record: `v=spf1 include:x${SPF_INCLUDE} -all`, problem: 'which has no SPF record' },
      { record: `v=spf1 a:${SPF_INCLUDE} -all`, problem: 'does not contain' },
    ];
    for (const { record, problem } of cases) {
      harness.dns.set(domain.name, 'TXT', [record]);
      const response = await api().post(`/v1/domains/${domain.id}/verify`);
      expect({ record, spfStatus: response.body.spfStatus, problem: response.body.recordProblems?.[0]?.problem }).toEqual({
        record,
        spfStatus: 'pending',
        problem: expect.stringContaining(problem),
      });
    }
  });

  it('takes a TXT for SPF only when it begins with v=spf1, as receivers do (RFC 7208 §4.5): not after a blank', async () => {
    const domain = await addDomain('spfblank');
    publish(harness.dns, domain.name, domain.dnsRecords);
    harness.dns.set(domain.name, 'TXT', [` v=spf1 include:${SPF_INCLUDE} ~all`]);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.spfStatus).toBe('pending');
    harness.dns.set(domain.name, 'TXT', [`v=spf1\tinclude:${SPF_INCLUDE} ~all`]);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.spfStatus).toBe('pending');
    // A record receivers discard is no second SPF record either.
    harness.dns.set(domain.name, 'TXT', [` v=spf1 -all`, `v=spf1 include:${SPF_INCLUDE} ~all`]);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.spfStatus).toBe('verified');
  });

  it('accepts a DMARC record whose version tag has an upper-case V or blanks around =, as RFC 7489 §6.4 allows, and no other version', async () => {
    const domain = await addDomain('dmarcforms');
    publish(harness.dns, domain.name, domain.dnsRecords);
    const cases = [
      { record: 'V=DMARC1; p=none', dmarcStatus: 'verified' },
      { record: 'v = DMARC1 ; p=reject', dmarcStatus: 'verified' },
      { record: 'v=dmarc1; p=none', dmarcStatus: 'pending' },
      { record: 'p=none; v=DMARC1', dmarcStatus: 'pending' },
      { record: 'v=DMARC10; p=none', dmarcStatus: 'pending' },
      { record: 'v=DMARC1; rua=mailto:d@example.com; p=reject', dmarcStatus: 'verified' },
    ];
    for (const { record, dmarcStatus } of cases) {
      harness.dns.set(`_dmarc.${domain.name}`, 'TXT', [record]);
      expect({ record, dmarcStatus: (await api().post(`/v1/domains/${domain.id}/verify`)).body.dmarcStatus }).toEqual({ record, dmarcStatus });
    }
  });

  it('names the problem when a DMARC record has v=DMARC1 later than its first tag: receivers ignore such a record (RFC 7489 §6.3)', async () => {
    const domain = await addDomain('dmarcorder');
    publish(harness.dns, domain.name, domain.dnsRecords);
    harness.dns.set(`_dmarc.${domain.name}`, 'TXT', ['p=reject; v=DMARC1']);
    const response = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(response.body).toMatchObject({ status: 'pending', dmarcStatus: 'pending', missingRecords: [domain.dnsRecords[2]] });
    expect(response.body.recordProblems).toEqual([{ purpose: 'dmarc', host: `_dmarc.${domain.name}`, problem: expect.stringContaining('v=DMARC1, but not as its first tag') }]);
  });

  it('does not accept a DMARC record without a policy: no valid p= (or an invalid sp=) and no valid rua= means receivers apply none (RFC 7489 §6.6.3)', async () => {
    const domain = await addDomain('dmarcpolicy');
    publish(harness.dns, domain.name, domain.dnsRecords);
    const cases = [
      { record: 'v=DMARC1', dmarcStatus: 'pending' },
      { record: 'v=DMARC1; p=monitor', dmarcStatus: 'pending' },
      { record: 'v=DMARC1; sp=reject', dmarcStatus: 'pending' },
      { record: 'v=DMARC1; p=reject; sp=bogus', dmarcStatus: 'pending' },
      { record: 'v=DMARC1; rua=dmarc@example.com', dmarcStatus: 'pending' },
      { record: 'v=DMARC1; P = Quarantine; pct=50', dmarcStatus: 'verified' },
      { record: 'v=DMARC1; rua=mailto:dmarc@example.com', dmarcStatus: 'verified' },
    ];
    for (const { record, dmarcStatus } of cases) {
      harness.dns.set(`_dmarc.${domain.name}`, 'TXT', [record]);
      const response = await api().post(`/v1/domains/${domain.id}/verify`);
      expect({ record, dmarcStatus: response.body.dmarcStatus }).toEqual({ record, dmarcStatus });
      if (dmarcStatus === 'pending') expect(response.body.recordProblems).toEqual([{ purpose: 'dmarc', host: `_dmarc.${domain.name}`, problem: expect.stringContaining('p=') }]);
    }
  });

  it('counts verifies that overlap as one: records gone from a verified domain fail it once confirmed, and no second verify makes it pending again', async () => {
    const domain = await addDomain('concurrent');
    publish(harness.dns, domain.name, domain.dnsRecords);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    harness.dns.clear(`_dmarc.${domain.name}`);
    // Slow answers (within DNS_TIMEOUT_MS) keep every verify's lookups in flight at once.
    harness.dns.delay(`_dmarc.${domain.name}`, 250);
    const firstLook = await Promise.all(Array.from({ length: 5 }, () => api().post(`/v1/domains/${domain.id}/verify`)));
    expect(firstLook.map((response) => [response.status, response.body.status, response.body.missingRecords])).toEqual(
      Array.from({ length: 5 }, () => [200, 'verified', [domain.dnsRecords[2]]]),
    );
    expect(await eventsOf(domain.id)).toHaveLength(1);

    await confirmationOver(domain.id);
    const overlapping = await Promise.all(Array.from({ length: 5 }, () => api().post(`/v1/domains/${domain.id}/verify`)));
    expect(overlapping.map((response) => [response.status, response.body.status])).toEqual(Array.from({ length: 5 }, () => [200, 'failed']));
    expect((await api().get(`/v1/domains/${domain.id}`)).body.status).toBe('failed');
    expect((await eventsOf(domain.id)).map((row) => row.type)).toEqual(['domain.verified', 'domain.failed']);

    // Records back: overlapping verifies verify it, once.
    publish(harness.dns, domain.name, domain.dnsRecords);
    harness.dns.delay(`_dmarc.${domain.name}`, 250);
    const revived = await Promise.all(Array.from({ length: 5 }, () => api().post(`/v1/domains/${domain.id}/verify`)));
    expect(revived.map((response) => response.body.status)).toEqual(Array.from({ length: 5 }, () => 'verified'));
    expect((await eventsOf(domain.id)).map((row) => row.type)).toEqual(['domain.verified', 'domain.failed', 'domain.verified']);
  });

  const timesOf = async (id: string) => {
    const [row] = (await db.query(`SELECT updated_at, last_checked_at FROM domains.domains WHERE id = $1`, [id])).rows;
    return { updatedAt: (row.updated_at as Date).getTime(), lastCheckedAt: (row.last_checked_at as Date).getTime() };
  };

  it('leaves updatedAt alone when a verify finds what the last check found, and moves lastCheckedAt', async () => {
    const domain = await addDomain('samecheck');
    publish(harness.dns, domain.name, domain.dnsRecords);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    const before = await timesOf(domain.id);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    const after = await timesOf(domain.id);
    expect(after.lastCheckedAt).toBeGreaterThan(before.lastCheckedAt);
    expect(after.updatedAt).toBe(before.updatedAt);
  });

  it('leaves updatedAt alone when a verify is dropped because another check moved the status meanwhile', async () => {
    const domain = await addDomain('overtaken');
    publish(harness.dns, domain.name, domain.dnsRecords);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    const dmarcHost = `_dmarc.${domain.name}`;
    harness.dns.clear(dmarcHost);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    await confirmationOver(domain.id);
    // The slow verify's DMARC lookup never gets an answer: it ends with its DNS_TIMEOUT_MS budget, long after the
    // fast one has failed the domain.
    harness.dns.delay(dmarcHost, Infinity);
    const asked = harness.dns.queries.length;
    const slow = api().post(`/v1/domains/${domain.id}/verify`);
    await eventually(async () => (harness.dns.queries.slice(asked).some((query) => query.name === dmarcHost) ? true : undefined));
    harness.dns.delay(dmarcHost, 0);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('failed');
    const afterFast = await timesOf(domain.id);
    expect((await slow).body.status).toBe('failed');
    expect(await timesOf(domain.id)).toEqual(afterFast);
    expect((await eventsOf(domain.id)).map((row) => row.type)).toEqual(['domain.verified', 'domain.failed']);
  });

  it('keeps a verified domain whose record disappeared verified, listing it as missing, until DOMAIN_FAILURE_CONFIRMATION has passed', async () => {
    const domain = await addDomain('confirming');
    publish(harness.dns, domain.name, domain.dnsRecords);
    const verified = (await api().post(`/v1/domains/${domain.id}/verify`)).body;
    harness.dns.clear(`_dmarc.${domain.name}`);
    const missing = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(missing.status).toBe(200);
    expect(missing.body).toMatchObject({ status: 'verified', verifiedAt: verified.verifiedAt, spfStatus: 'verified', dkimStatus: 'verified', dmarcStatus: 'pending' });
    expect(missing.body.missingRecords).toEqual([domain.dnsRecords[2]]);
    const got = (await api().get(`/v1/domains/${domain.id}`)).body;
    expect(got).toMatchObject({ status: 'verified', dmarcStatus: 'pending' });
    expect(got.dnsRecords.map((record: { verified: boolean }) => record.verified)).toEqual([true, true, false]);

    // Put back before the confirmation ends: verified all along, and nothing was published.
    publish(harness.dns, domain.name, domain.dnsRecords);
    const back = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(back.body).toMatchObject({ status: 'verified', verifiedAt: verified.verifiedAt, dmarcStatus: 'verified' });
    expect(back.body.missingRecords).toBeUndefined();
    expect((await eventsOf(domain.id)).map((row) => row.type)).toEqual(['domain.verified']);
  });

  it('does not let a verify whose lookups began first undo, with its older answers, the confirmation a later verify began', async () => {
    const domain = await addDomain('olderanswers');
    publish(harness.dns, domain.name, domain.dnsRecords);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    const dmarcHost = `_dmarc.${domain.name}`;
    // The first verify's SPF answer is slow (within DNS_TIMEOUT_MS); its DMARC answer, the record still there, is not.
    harness.dns.delay(domain.name, 300);
    const asked = harness.dns.queries.length;
    let olderDone = false;
    const older = api()
      .post(`/v1/domains/${domain.id}/verify`)
      .then((response) => {
        olderDone = true;
        return response;
      });
    await eventually(() => {
      const names = harness.dns.queries.slice(asked).map((query) => query.name);
      return names.includes(domain.name) && names.includes(dmarcHost) ? true : undefined;
    });
    harness.dns.delay(domain.name, 0);
    harness.dns.clear(dmarcHost);
    // The later verify finds DMARC gone and is applied first: the confirmation begins.
    const later = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(olderDone).toBe(false);
    expect(later.body).toMatchObject({ status: 'verified', dmarcStatus: 'pending', missingRecords: [domain.dnsRecords[2]] });
    const [{ records_missing_since: since }] = (await db.query(`SELECT records_missing_since FROM domains.domains WHERE id = $1`, [domain.id])).rows;
    expect(since).not.toBeNull();

    // The older answers (DMARC found) do not clear it, nor put the next check off for DOMAIN_VERIFIED_RECHECK_INTERVAL.
    const answer = (await older).body;
    expect(answer).toMatchObject({ status: 'verified', dmarcStatus: 'pending' });
    const [row] = (await db.query(`SELECT records_missing_since, next_check_at FROM domains.domains WHERE id = $1`, [domain.id])).rows;
    expect(row.records_missing_since).toEqual(since);
    expect(row.next_check_at.getTime() - since.getTime()).toBeLessThanOrEqual(FAILURE_CONFIRMATION_MS);
    expect((await eventsOf(domain.id)).map((event) => event.type)).toEqual(['domain.verified']);
  });

  it('fails a verified domain whose records disappeared, emits domain.failed, and verify brings it back', async () => {
    const domain = await addDomain('disappear');
    publish(harness.dns, domain.name, domain.dnsRecords);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    harness.dns.clear(`_dmarc.${domain.name}`);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    await confirmationOver(domain.id);
    const failed = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(failed.body).toMatchObject({ status: 'failed', dmarcStatus: 'pending', spfStatus: 'verified' });
    expect(failed.body.missingRecords).toEqual([domain.dnsRecords[2]]);
    expect((await api().get('/v1/domains?status=failed')).body.data.map((item: { id: string }) => item.id)).toContain(domain.id);

    const stillMissing = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(stillMissing.body.status).toBe('pending');
    publish(harness.dns, domain.name, domain.dnsRecords);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    expect((await eventsOf(domain.id)).map((row) => row.type)).toEqual(['domain.verified', 'domain.failed', 'domain.verified']);
  });
});
