import { Resolver } from 'node:dns/promises';
import { ClientProxy, ClientProxyFactory, Transport } from '@nestjs/microservices';
import { firstValueFrom } from 'rxjs';
import { DomainsSubjects, SenderIdentityReply } from '@mailroom/contracts';
import { eventually } from '@mailroom/testing';
import { DKIM_ZONE, DomainsHarness, publish, startDomainsHarness, stopDomainsHarness, uniqueDomain } from './domains-fixtures';

const TRACKING_HOST = 'track.mailroom.test';

/** The quoted character-strings of one zone-file TXT line, joined as a resolver joins them. */
function txtOfZoneLine(line: string): string {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]).join('');
}

describe('domains: PATCH /v1/domains/{id}, the custom tracking domain and the zone export over HTTP', () => {
  let harness: DomainsHarness;
  let nats: ClientProxy;
  beforeAll(async () => {
    // A compressed first backoff step, so the background re-check (which a new tracking domain pulls forward) runs within the test.
    harness = await startDomainsHarness({ TRACKING_BASE_URL: `https://${TRACKING_HOST}`, DOMAIN_RECHECK_SCHEDULE: '300ms' });
    nats = ClientProxyFactory.create({ transport: Transport.NATS, options: { servers: [harness.stack.nats.url] } });
    await nats.connect();
  }, 60000);
  afterAll(async () => {
    await nats?.close();
    await stopDomainsHarness(harness);
  });

  const api = () => harness.stack.api;
  const addDomain = async (prefix: string) => {
    const response = await api().post('/v1/domains', { name: uniqueDomain(prefix) });
    expect(response.status).toBe(201);
    return response.body;
  };
  const senderIdentity = async (name: string) => (await firstValueFrom(nats.send<SenderIdentityReply>(DomainsSubjects.senderIdentity, { name }))).identity;

  it('turns open and click tracking off and on, and GET and the sender identity show it', async () => {
    const domain = await addDomain('switches');
    expect(domain).toMatchObject({ openTracking: true, clickTracking: true, trackingDomain: TRACKING_HOST, trackingDomainStatus: 'verified' });

    const off = await api().patch(`/v1/domains/${domain.id}`, { openTracking: false });
    expect(off.status).toBe(200);
    // The full object, like GET: records with flags, tracking fields, the unchanged status.
    expect(off.body).toMatchObject({ id: domain.id, object: 'domain', name: domain.name, status: 'pending', openTracking: false, clickTracking: true });
    expect(off.body.dnsRecords.map((record: { verified: boolean }) => record.verified)).toEqual([false, false, false]);
    expect(off.body).toMatchObject({ trackingDomain: TRACKING_HOST, trackingDomainStatus: 'verified' });
    expect((await api().get(`/v1/domains/${domain.id}`)).body).toMatchObject({ openTracking: false, clickTracking: true });

    const swapped = await api().patch(`/v1/domains/${domain.id}`, { openTracking: true, clickTracking: false });
    expect(swapped.body).toMatchObject({ openTracking: true, clickTracking: false });
    expect((await api().get(`/v1/domains/${domain.id}`)).body).toMatchObject({ openTracking: true, clickTracking: false });
    expect(await senderIdentity(domain.name)).toMatchObject({ openTracking: true, clickTracking: false, trackingBaseUrl: `https://${TRACKING_HOST}` });
  });

  it.each([
    ['a string for a switch', { openTracking: 'no' }, /^openTracking: must be true or false$/],
    ['null for a switch', { clickTracking: null }, /^clickTracking: must not be null$/],
    ['a tracking domain that is no hostname', { trackingDomain: 'links-.example.com' }, /^trackingDomain: must be a valid domain name/],
    ['a tracking domain with a query, which the punycode conversion cut off', { trackingDomain: 'links.example.com?x' }, /^trackingDomain: must hold only letters, digits, hyphens and dots; '\?' has no place in a domain name$/],
    ['the default host with a path', { trackingDomain: `${TRACKING_HOST}/x` }, /^trackingDomain: must hold only letters, digits, hyphens and dots; '\/' has no place/],
    ['an IP literal as tracking domain', { trackingDomain: '192.0.2.10' }, /^trackingDomain: must be a domain name, not an IP address$/],
    ['a number as tracking domain', { trackingDomain: 7 }, /^trackingDomain: must be a string$/],
    ['an array as tracking domain', { trackingDomain: ['links.example.com'] }, /^trackingDomain: must be a string$/],
    ['an unknown field', { openTracking: false, tracking: false }, /^tracking: is not a known field$/],
  ])('answers 422 validation_error naming the field for %s, and changes nothing', async (_, body, message) => {
    const domain = await addDomain('invalid');
    const response = await api().patch(`/v1/domains/${domain.id}`, body);
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.message).toMatch(message);
    expect((await api().get(`/v1/domains/${domain.id}`)).body).toMatchObject({ openTracking: true, clickTracking: true, trackingDomain: TRACKING_HOST });
  });

  // Neither could ever verify: a CNAME stands alone at its name, and the domain's SPF record (and a zone apex's SOA and NS)
  // live at the domain's own name; nobody publishes anything at a public suffix.
  it.each([
    ['the domain itself, in any spelling', (name: string) => name.toUpperCase(), (name: string) => `must be a host under ${name}, such as links.${name}, not the domain itself`],
    ['a public suffix', () => 'co.uk', () => 'must be a host under a domain you own: co.uk is a public suffix'],
    ['an internationalized public suffix', () => '公司.cn', () => 'must be a host under a domain you own: xn--55qx5d.cn is a public suffix'],
    ['a host inside the DKIM zone, which this Mailroom answers itself', () => `links.${DKIM_ZONE}`, () => `must be a domain you own: links.${DKIM_ZONE} is inside ${DKIM_ZONE}, the DKIM zone`],
  ])('answers 422 for %s as tracking domain, which could never verify, and changes nothing', async (_, requested, problem) => {
    const domain = await addDomain('selftrack');
    const response = await api().patch(`/v1/domains/${domain.id}`, { trackingDomain: requested(domain.name) });
    expect(response.status).toBe(422);
    expect(response.body.error).toEqual({ code: 'validation_error', message: expect.stringContaining(`trackingDomain: ${problem(domain.name)}`) });
    expect((await api().get(`/v1/domains/${domain.id}`)).body).toMatchObject({ trackingDomain: TRACKING_HOST, trackingDomainStatus: 'verified' });
  });

  it('answers 413 payload_too_large, not a 500, for a body within BODY_LIMIT_BYTES that the message bus cannot carry, and changes nothing', async () => {
    const domain = await addDomain('oversized');
    // 1.1 MB: under the 10 MB body limit, over NATS's default max_payload of 1 MB.
    const response = await api().patch(`/v1/domains/${domain.id}`, { trackingDomain: 'x'.repeat(1_100_000) });
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('payload_too_large');
    expect(response.body.error.message).toMatch(/NATS max_payload/);
    expect((await api().get(`/v1/domains/${domain.id}`)).body).toMatchObject({ trackingDomain: TRACKING_HOST });
  });

  it('answers 404 for an unknown id', async () => {
    const response = await api().patch('/v1/domains/dom_01ARZ3NDEKTSV4RRFFQ69G5FAV', { openTracking: false });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('not_found');
  });

  it('keeps a custom tracking domain pending until its CNAME to the tracking host verifies, apart from the domain status', async () => {
    const domain = await addDomain('branded');
    const trackingDomain = `links.${domain.name}`;
    const set = await api().patch(`/v1/domains/${domain.id}`, { trackingDomain: trackingDomain.toUpperCase() });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ trackingDomain, trackingDomainStatus: 'pending', status: 'pending' });
    // Not verified yet: mail keeps the default host.
    expect((await senderIdentity(domain.name))!.trackingBaseUrl).toBe(`https://${TRACKING_HOST}`);

    const missing = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(missing.body).toMatchObject({ trackingDomain, trackingDomainStatus: 'pending', trackingDomainProblem: expect.stringContaining(`CNAME ${TRACKING_HOST}`) });

    // Case and a trailing dot do not matter.
    harness.dns.set(trackingDomain, 'CNAME', `${TRACKING_HOST.toUpperCase()}.`);
    const verified = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ status: 'pending', trackingDomain, trackingDomainStatus: 'verified' });
    expect(verified.body.trackingDomainProblem).toBeUndefined();
    expect((await api().get(`/v1/domains/${domain.id}`)).body).toMatchObject({ status: 'pending', trackingDomain, trackingDomainStatus: 'verified' });
    expect((await senderIdentity(domain.name))!.trackingBaseUrl).toBe(`https://${trackingDomain}`);

    // The same name again keeps the status; null goes back to the default host.
    expect((await api().patch(`/v1/domains/${domain.id}`, { trackingDomain })).body.trackingDomainStatus).toBe('verified');
    const cleared = await api().patch(`/v1/domains/${domain.id}`, { trackingDomain: null });
    expect(cleared.body).toMatchObject({ trackingDomain: TRACKING_HOST, trackingDomainStatus: 'verified' });
    expect((await senderIdentity(domain.name))!.trackingBaseUrl).toBe(`https://${TRACKING_HOST}`);
  });

  it('does not change the sending domain status machine: a verified domain stays verified while its tracking domain is pending', async () => {
    const domain = await addDomain('stillverified');
    publish(harness.dns, domain.name, domain.dnsRecords);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    const patched = await api().patch(`/v1/domains/${domain.id}`, { trackingDomain: `t.${domain.name}` });
    expect(patched.body).toMatchObject({ status: 'verified', trackingDomainStatus: 'pending' });
    const verify = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(verify.body).toMatchObject({ status: 'verified', trackingDomainStatus: 'pending' });
  });

  it('keeps a tracking domain whose CNAME points elsewhere pending, and says where it points', async () => {
    const domain = await addDomain('wrongtrack');
    const trackingDomain = `click.${domain.name}`;
    await api().patch(`/v1/domains/${domain.id}`, { trackingDomain });
    harness.dns.set(trackingDomain, 'CNAME', 'track.someone-else.example');
    const response = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(response.body).toMatchObject({ trackingDomainStatus: 'pending', trackingDomainProblem: expect.stringContaining('track.someone-else.example') });
    expect((await api().get(`/v1/domains/${domain.id}`)).body.trackingDomainStatus).toBe('pending');
    expect((await senderIdentity(domain.name))!.trackingBaseUrl).toBe(`https://${TRACKING_HOST}`);
  });

  it('flips nothing on a DNS timeout; a CNAME that disappears for real fails the tracking domain', async () => {
    const domain = await addDomain('tracktimeout');
    const trackingDomain = `t.${domain.name}`;
    await api().patch(`/v1/domains/${domain.id}`, { trackingDomain });
    harness.dns.set(trackingDomain, 'CNAME', TRACKING_HOST);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.trackingDomainStatus).toBe('verified');

    harness.dns.delay(trackingDomain, Infinity);
    const timedOut = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(timedOut.status).toBe(200);
    expect(timedOut.body).toMatchObject({ trackingDomainStatus: 'verified', trackingDomainDnsError: 'timeout' });
    expect(timedOut.body.trackingDomainProblem).toBeUndefined();
    expect((await api().get(`/v1/domains/${domain.id}`)).body.trackingDomainStatus).toBe('verified');

    harness.dns.clear(trackingDomain);
    const gone = await api().post(`/v1/domains/${domain.id}/verify`);
    expect(gone.body).toMatchObject({ trackingDomainStatus: 'failed', trackingDomainProblem: expect.any(String) });
    expect((await senderIdentity(domain.name))!.trackingBaseUrl).toBe(`https://${TRACKING_HOST}`);
  });

  it('verifies a tracking domain in the background re-check, without a verify call', async () => {
    const domain = await addDomain('background');
    const trackingDomain = `go.${domain.name}`;
    harness.dns.set(trackingDomain, 'CNAME', TRACKING_HOST);
    expect((await api().patch(`/v1/domains/${domain.id}`, { trackingDomain })).body.trackingDomainStatus).toBe('pending');
    const got = await eventually(async () => {
      const response = await api().get(`/v1/domains/${domain.id}`);
      return response.body.trackingDomainStatus === 'verified' ? response.body : undefined;
    });
    expect(got).toMatchObject({ status: 'pending', trackingDomain });
  });

  it('limits PATCH and the zone export to the domains a restricted key may see', async () => {
    const allowed = uniqueDomain('mine');
    const other = await addDomain('notmine');
    const key = await harness.stack.issueKey({ permissions: ['domains:*'], domainRestrictions: [allowed] });
    const restricted = api().withKey(key.key);
    const mine = (await restricted.post('/v1/domains', { name: allowed })).body;

    const hidden = await restricted.patch(`/v1/domains/${other.id}`, { openTracking: false });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('not_found');
    expect((await api().get(`/v1/domains/${other.id}`)).body.openTracking).toBe(true);
    expect((await restricted.patch(`/v1/domains/${mine.id}`, { openTracking: false })).body.openTracking).toBe(false);

    const labelOf = (domain: { dnsRecords: Array<{ value: string }> }) => domain.dnsRecords[1].value.split('.')[0];
    const zone = await restricted.get('/v1/domains/dkim-zone');
    expect(zone.status).toBe(200);
    expect(zone.body).toContain(`${labelOf(mine)}\tIN\tTXT`);
    expect(zone.body).not.toContain(labelOf(other));
    expect(zone.body).not.toContain(other.name);
    // The unrestricted key sees both.
    const full = (await api().get('/v1/domains/dkim-zone')).body;
    expect(full).toContain(labelOf(mine));
    expect(full).toContain(labelOf(other));
  });

  /**
   * A custom tracking domain verifies by its CNAME alone, and another domain's owners publish theirs: a key
   * restricted to its own domains could otherwise put its mail's links under their name (their brand, and
   * their link domain's reputation) by pointing its domain's tracking domain at it.
   */
  it('lets a restricted key name a tracking domain only at or under its own domains', async () => {
    const allowed = uniqueDomain('ownlinks');
    const other = await addDomain('theirlinks');
    harness.dns.set(`links.${other.name}`, 'CNAME', TRACKING_HOST);
    const restricted = api().withKey((await harness.stack.issueKey({ permissions: ['domains:*'], domainRestrictions: [allowed] })).key);
    const mine = (await restricted.post('/v1/domains', { name: allowed })).body;

    for (const trackingDomain of [`links.${other.name}`, other.name, `${allowed}.evil.example`, `x${allowed}`]) {
      const refused = await restricted.patch(`/v1/domains/${mine.id}`, { trackingDomain });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toEqual({ code: 'forbidden', message: expect.stringMatching(new RegExp(`restricted to ${allowed.replace(/\./g, '\\.')}`)) });
    }
    expect((await restricted.get(`/v1/domains/${mine.id}`)).body).toMatchObject({ trackingDomain: TRACKING_HOST, trackingDomainStatus: 'verified' });

    for (const trackingDomain of [`links.${allowed}`, `LINKS.${allowed.toUpperCase()}`, null]) {
      expect((await restricted.patch(`/v1/domains/${mine.id}`, { trackingDomain })).status).toBe(200);
    }
    // The default host is no other domain's name, and an unrestricted key may still name any host.
    expect((await restricted.patch(`/v1/domains/${mine.id}`, { trackingDomain: TRACKING_HOST })).status).toBe(200);
    expect((await api().patch(`/v1/domains/${mine.id}`, { trackingDomain: `links.${other.name}` })).body.trackingDomain).toBe(`links.${other.name}`);
  });

  it('exports the DKIM zone over HTTP as text/plain, holding the TXT the service answers for the selector', async () => {
    const domain = await addDomain('zonehttp');
    const response = await api().get('/v1/domains/dkim-zone');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const zoneFile = response.body as string;
    expect(zoneFile).toContain(`$ORIGIN ${DKIM_ZONE}.`);
    expect(zoneFile).toMatch(/^@\tIN\tSOA\t/m);

    const target = domain.dnsRecords[1].value as string;
    const line = zoneFile.split('\n').find((entry) => entry.startsWith(`${target.split('.')[0]}\tIN\tTXT`));
    expect(line).toBeDefined();
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([harness.dkimDns]);
    const [answer] = await resolver.resolveTxt(target);
    expect(txtOfZoneLine(line!)).toBe(answer.join(''));
    expect(txtOfZoneLine(line!)).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{300,}$/);
  });

  it('is described in the OpenAPI reference: the PATCH body and the text/plain zone file', async () => {
    const doc = (await api().get('/openapi.json', { key: null })).body;
    const patch = doc.paths['/v1/domains/{id}'].patch;
    expect(patch['x-permission']).toBe('domains:*');
    expect(JSON.stringify(patch.requestBody)).toContain('#/components/schemas/DomainUpdateDto');
    expect(Object.keys(doc.components.schemas.DomainUpdateDto.properties).sort()).toEqual(['clickTracking', 'openTracking', 'trackingDomain']);
    expect(doc.components.schemas.DomainUpdateDto.properties.trackingDomain.type).toEqual(['string', 'null']);
    expect(patch.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Domain' });
    const zone = doc.paths['/v1/domains/dkim-zone'].get;
    expect(zone['x-permission']).toBe('domains:*');
    expect(Object.keys(zone.responses['200'].content)).toEqual(['text/plain']);
    expect(zone.responses['200'].content['text/plain'].schema.type).toBe('string');
  });

  it('requires domains:* for PATCH and the zone export', async () => {
    const domain = await addDomain('perm');
    const key = await harness.stack.issueKey({ permissions: ['emails:send'] });
    const other = api().withKey(key.key);
    const patch = await other.patch(`/v1/domains/${domain.id}`, { openTracking: false });
    expect(patch.status).toBe(403);
    expect(patch.body.error.message).toContain('domains:*');
    const zone = await other.get('/v1/domains/dkim-zone');
    expect(zone.status).toBe(403);
    expect(zone.headers.get('content-type')).toContain('application/json');
  });
});
