import { DomainsHarness, SPF_INCLUDE, startDomainsHarness, stopDomainsHarness, uniqueDomain, DKIM_ZONE } from './domains-fixtures';

describe('domains API: add, list, get, restrictions', () => {
  let harness: DomainsHarness;
  beforeAll(async () => {
    harness = await startDomainsHarness();
  }, 60000);
  afterAll(() => stopDomainsHarness(harness));

  const api = () => harness.stack.api;

  it('adds a domain as pending with the three records of the interface', async () => {
    const name = uniqueDomain();
    const response = await api().post('/v1/domains', { name });
    expect(response.status).toBe(201);
    const domain = response.body;
    expect(domain).toMatchObject({ object: 'domain', name, status: 'pending', region: 'us', spfStatus: 'pending', dkimStatus: 'pending', dmarcStatus: 'pending' });
    expect(domain.id).toMatch(/^dom_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Date(domain.createdAt).toISOString()).toBe(domain.createdAt);
    expect(domain.verifiedAt).toBeUndefined();
    const [spf, dkim, dmarc] = domain.dnsRecords;
    expect(spf).toEqual({ type: 'TXT', host: '@', value: `v=spf1 include:${SPF_INCLUDE} ~all`, purpose: 'spf' });
    expect(dkim).toMatchObject({ type: 'CNAME', purpose: 'dkim' });
    expect(dkim.host).toMatch(/^mr\d{6}\._domainkey$/);
    expect(dkim.value).toBe(`${dkim.host.split('.')[0]}-${domain.id.slice(4).toLowerCase()}.${DKIM_ZONE}`);
    expect(dmarc).toEqual({ type: 'TXT', host: '_dmarc', value: 'v=DMARC1; p=none;', purpose: 'dmarc' });
    expect(domain.dnsRecords).toHaveLength(3);
    expect(JSON.stringify(domain)).not.toMatch(/PRIVATE KEY|privateKey/i);
  });

  it('accepts region eu, lower-cases the name and converts IDN to punycode', async () => {
    const upper = await api().post('/v1/domains', { name: `Mixed-${uniqueDomain().toUpperCase()}`, region: 'eu' });
    expect(upper.status).toBe(201);
    expect(upper.body.region).toBe('eu');
    expect(upper.body.name).toBe(upper.body.name.toLowerCase());
    const idn = await api().post('/v1/domains', { name: `bücher-${Date.now()}.de` });
    expect(idn.status).toBe(201);
    expect(idn.body.name).toMatch(/^xn--bcher-.*-[a-z0-9]+\.de$/);
  });

  it('answers 409 conflict for a name that exists, also in another spelling', async () => {
    const name = uniqueDomain();
    const first = await api().post('/v1/domains', { name });
    expect(first.status).toBe(201);
    const again = await api().post('/v1/domains', { name: name.toUpperCase() });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    // Named, so a client whose first create timed out knows where its domain is.
    expect(again.body.error.message).toBe(`The domain ${name} already exists as ${first.body.id}.`);
  });

  it.each([
    ['a bad hostname', '-not-a-domain-.example', 'must be a valid domain name'],
    ['an IPv4 literal', '192.0.2.1', 'not an IP address'],
    ['an IPv6 literal', '[2001:db8::1]', 'not an IP address'],
    ['a trailing dot', 'example.com.', 'must not end with a dot'],
    ['a name longer than 253 characters', `${['a', 'b', 'c', 'd', 'e'].map((letter) => letter.repeat(60)).join('.')}.com`, 'at most 253'],
    ['a label longer than 63 characters', `${'a'.repeat(64)}.com`, 'must be a valid domain name'],
    ['no top-level domain', 'localhost', 'must be a valid domain name'],
    ['a public suffix', 'co.uk', 'co.uk is a public suffix'],
    ['a public suffix in capitals', 'GOV.BR', 'gov.br is a public suffix'],
    ['an internationalized public suffix', '公司.cn', 'xn--55qx5d.cn is a public suffix'],
    // The punycode conversion reads a URL host: it stored exa%41mple.com as exaample.com and example.com/x as example.com.
    ['a percent escape', 'exa%41mple.com', "'%' has no place in a domain name"],
    ['a path', 'example.com/x', "'/' has no place in a domain name"],
    ['a tab', 'exa\tmple.com', '"\\t" has no place in a domain name'],
    ['a backslash in an internationalized name', 'bücher.de\\evil.com', "'\\' has no place in a domain name"],
    ['a number', 42, 'must be a string'],
    ['an array', [], 'must be a string'],
    ['an object', {}, 'must be a string'],
    ['true', true, 'must be a string'],
  ])('answers 422 validation_error naming the field for %s', async (_, name, message) => {
    const response = await api().post('/v1/domains', { name });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.message).toContain('name:');
    expect(response.body.error.message).toContain(message);
  });

  it.each([
    ['the DKIM zone itself', DKIM_ZONE],
    ['a name inside it', `mail.${DKIM_ZONE}`],
    ['a name inside it in capitals', `MAIL.${DKIM_ZONE.toUpperCase()}`],
  ])('answers 422 naming the field for %s, where this Mailroom answers every name and nobody could publish the records', async (_, name) => {
    const response = await api().post('/v1/domains', { name });
    expect(response.status).toBe(422);
    expect(response.body.error).toEqual({ code: 'validation_error', message: expect.stringMatching(new RegExp(`^name: must be a domain you own: .* is inside ${DKIM_ZONE.replace(/\./g, '\\.')}, the DKIM zone`)) });
  });

  it('takes a name that merely ends like the DKIM zone without being under it', async () => {
    // example-…-dkim.mailroom.test: under mailroom.test, beside the zone.
    const name = `${uniqueDomain().split('.')[0]}-${DKIM_ZONE}`;
    const response = await api().post('/v1/domains', { name });
    expect(response.status).toBe(201);
  });

  it('takes a name up to 233 characters, so that its DKIM record name (mr…._domainkey.<name>) fits in 253', async () => {
    /** Labels of 60 letters and a last one that makes the length exactly `length`, ending in .test. */
    const nameOfLength = (length: number, letter: string) => {
      const labels: string[] = [];
      let left = length - '.test'.length;
      while (left > 61) {
        labels.push(letter.repeat(60));
        left -= 61;
      }
      labels.push(letter.repeat(left));
      return `${labels.join('.')}.test`;
    };
    expect(nameOfLength(233, 'q')).toHaveLength(233);
    const longest = await api().post('/v1/domains', { name: nameOfLength(233, 'q') });
    expect(longest.status).toBe(201);
    expect(longest.body.dnsRecords.map((record: { host: string }) => `${record.host}.${longest.body.name}`.length).every((length: number) => length <= 253)).toBe(true);
    const tooLong = await api().post('/v1/domains', { name: nameOfLength(234, 'r') });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error.message).toMatch(/^name: must be at most 233 characters/);
  });

  it('takes a name registered under a public suffix, and one under a privately run suffix', async () => {
    const underIcannSuffix = `${uniqueDomain().split('.')[0]}.co.uk`;
    expect((await api().post('/v1/domains', { name: underIcannSuffix })).status).toBe(201);
    const privateSuffix = await api().post('/v1/domains', { name: `${uniqueDomain().split('.')[0]}.github.io` });
    expect(privateSuffix.status).toBe(201);
  });

  it('answers 422 for an unknown region and for a missing name', async () => {
    const region = await api().post('/v1/domains', { name: uniqueDomain(), region: 'mars' });
    expect(region.status).toBe(422);
    expect(region.body.error.message).toMatch(/^region:/);
    const missing = await api().post('/v1/domains', {});
    expect(missing.status).toBe(422);
    expect(missing.body.error.message).toMatch(/^name:/);
  });

  it('gets the full object with verified flags, tracking domain and no verifiedAt yet', async () => {
    const created = (await api().post('/v1/domains', { name: uniqueDomain() })).body;
    const response = await api().get(`/v1/domains/${created.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: created.id, status: 'pending', trackingDomain: 'track.mailroom.test', trackingDomainStatus: 'verified' });
    expect(response.body.dnsRecords.map((record: { verified: boolean }) => record.verified)).toEqual([false, false, false]);
    expect(response.body.verifiedAt).toBeUndefined();
  });

  it('answers 404 not_found for an unknown id', async () => {
    const response = await api().get('/v1/domains/dom_01J00000000000000000000000');
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('not_found');
    expect((await api().post('/v1/domains/dom_01J00000000000000000000000/verify')).status).toBe(404);
  });

  it('lists newest first with list fields only, the status filter and cursors', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api().post('/v1/domains', { name: uniqueDomain('list') })).body.id);
    const first = await api().get('/v1/domains?limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', hasMore: true });
    expect(first.body.data.map((item: { id: string }) => item.id)).toEqual([ids[2], ids[1]]);
    expect(Object.keys(first.body.data[0]).sort()).toEqual(['createdAt', 'dkimStatus', 'dmarcStatus', 'id', 'name', 'object', 'region', 'spfStatus', 'status']);
    const next = await api().get(`/v1/domains?limit=2&starting_after=${ids[1]}`);
    expect(next.body.data[0].id).toBe(ids[0]);
    const back = await api().get(`/v1/domains?limit=1&ending_before=${ids[1]}`);
    expect(back.body.data.map((item: { id: string }) => item.id)).toEqual([ids[2]]);
    const verified = await api().get('/v1/domains?status=verified');
    expect(verified.body).toMatchObject({ object: 'list', data: [], totalCount: 0, hasMore: false });
    const pending = await api().get('/v1/domains?status=pending');
    expect(pending.body.totalCount).toBe(first.body.totalCount);
    expect((await api().get('/v1/domains?status=weird')).status).toBe(422);
    expect((await api().get('/v1/domains?limit=101')).status).toBe(422);
  });

  it('limits a key with domainRestrictions to its names and hides the rest as 404', async () => {
    const allowed = uniqueDomain('allowed');
    const other = (await api().post('/v1/domains', { name: uniqueDomain('other') })).body;
    const key = await harness.stack.issueKey({ permissions: ['domains:*'], domainRestrictions: [allowed] });
    const restricted = api().withKey(key.key);
    expect((await restricted.post('/v1/domains', { name: uniqueDomain('elsewhere') })).status).toBe(403);
    const mine = await restricted.post('/v1/domains', { name: allowed });
    expect(mine.status).toBe(201);
    expect((await restricted.get(`/v1/domains/${other.id}`)).status).toBe(404);
    expect((await restricted.post(`/v1/domains/${other.id}/verify`)).status).toBe(404);
    expect((await restricted.delete(`/v1/domains/${other.id}`)).status).toBe(404);
    const list = await restricted.get('/v1/domains');
    expect(list.body.data.map((item: { name: string }) => item.name)).toEqual([allowed]);
    expect(list.body.totalCount).toBe(1);
    expect((await restricted.get(`/v1/domains/${mine.body.id}`)).status).toBe(200);
  });

  it('requires the domains:* permission', async () => {
    const key = await harness.stack.issueKey({ permissions: ['emails:send'] });
    const response = await api().withKey(key.key).get('/v1/domains');
    expect(response.status).toBe(403);
    expect(response.body.error.message).toContain('domains:*');
  });

  it('refuses deletion with 503 and keeps the domain when the emails service does not answer', async () => {
    const created = (await api().post('/v1/domains', { name: uniqueDomain('nodelete') })).body;
    const response = await api().delete(`/v1/domains/${created.id}`);
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('service_unavailable');
    expect((await api().get(`/v1/domains/${created.id}`)).status).toBe(200);
  });
});
