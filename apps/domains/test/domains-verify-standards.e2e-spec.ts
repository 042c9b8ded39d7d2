import { DKIM_ZONE, DomainsHarness, publish, SPF_INCLUDE, startDomainsHarness, stopDomainsHarness, uniqueDomain } from './domains-fixtures';

const TRACKING_HOST = 'track.mailroom.test';

/** Verification reads DNS as receivers do: SPF includes and redirects, the organizational domain's DMARC, CNAME chains. */
describe('domains: verification follows the DNS standards', () => {
  let harness: DomainsHarness;
  beforeAll(async () => {
    // A check's lookups share one DNS_TIMEOUT_MS, and these tests follow chains of up to 11 of them one after
    // another: the fixtures' 400 ms (kept short for the suites that time lookups out) ran out on a loaded
    // machine, and the check ended in a timeout instead of the problem under test. None here times out a lookup.
    harness = await startDomainsHarness({ DNS_TIMEOUT_MS: '5000' });
    harness.dns.forward(DKIM_ZONE, harness.dkimDns);
  }, 60000);
  afterAll(async () => {
    await stopDomainsHarness(harness);
  });

  const api = () => harness.stack.api;
  const addDomain = async (name: string) => {
    const response = await api().post('/v1/domains', { name });
    expect(response.status).toBe(201);
    return response.body;
  };
  const verify = async (id: string) => (await api().post(`/v1/domains/${id}/verify`)).body;

  describe('SPF (RFC 7208)', () => {
    it('accepts our include reached through a nested include or a redirect=', async () => {
      const domain = await addDomain(uniqueDomain('spfnested'));
      publish(harness.dns, domain.name, domain.dnsRecords, ['dkim', 'dmarc']);
      harness.dns.set(domain.name, 'TXT', [`v=spf1 ip4:192.0.2.1 include:_spf.${domain.name} -all`]);
      harness.dns.set(`_spf.${domain.name}`, 'TXT', [`v=spf1 include:_inner.${domain.name} ~all`]);
      harness.dns.set(`_inner.${domain.name}`, 'TXT', [`v=spf1 a mx include:${SPF_INCLUDE} ~all`]);
      expect(await verify(domain.id)).toMatchObject({ status: 'verified', spfStatus: 'verified' });

      harness.dns.set(domain.name, 'TXT', [`v=spf1 redirect=_spf.${domain.name}`]);
      expect(await verify(domain.id)).toMatchObject({ status: 'verified', spfStatus: 'verified' });
    });

    it('accepts a redirect= straight to SPF_INCLUDE, which makes our record the domain\'s, as receivers read it (RFC 7208 §6.1)', async () => {
      const domain = await addDomain(uniqueDomain('spfredirectours'));
      publish(harness.dns, domain.name, domain.dnsRecords, ['dkim', 'dmarc']);
      // Ours lists our sending addresses; it does not include itself.
      harness.dns.set(SPF_INCLUDE, 'TXT', ['v=spf1 ip4:192.0.2.0/24 -all']);
      harness.dns.set(domain.name, 'TXT', [`v=spf1 redirect=${SPF_INCLUDE}`]);
      const response = await verify(domain.id);
      expect(response.recordProblems).toBeUndefined();
      expect(response).toMatchObject({ status: 'verified', spfStatus: 'verified' });
    });

    it('does not accept our include behind a nested include with a non-pass qualifier, or a redirect= that an all overrides', async () => {
      const domain = await addDomain(uniqueDomain('spfnestedq'));
      publish(harness.dns, domain.name, domain.dnsRecords, ['dkim', 'dmarc']);
      harness.dns.set(`_spf.${domain.name}`, 'TXT', [`v=spf1 include:${SPF_INCLUDE} -all`]);
      harness.dns.set(domain.name, 'TXT', [`v=spf1 ~include:_spf.${domain.name} -all`]);
      const softened = await verify(domain.id);
      expect(softened.spfStatus).toBe('pending');
      expect(softened.recordProblems).toEqual([{ purpose: 'spf', host: domain.name, problem: expect.stringContaining('qualifier ~') }]);

      // RFC 7208 §6.1: redirect= is ignored when the record has an all mechanism.
      harness.dns.set(domain.name, 'TXT', [`v=spf1 -all redirect=_spf.${domain.name}`]);
      expect((await verify(domain.id)).spfStatus).toBe('pending');
    });

    it('stops at the 10-lookup limit (RFC 7208 §4.6.4) with a reason, counting include, a, mx, ptr, exists and redirect=', async () => {
      const domain = await addDomain(uniqueDomain('spflimit'));
      publish(harness.dns, domain.name, domain.dnsRecords, ['dkim', 'dmarc']);
      // 1 redirect + 1 include + a, mx, ptr, exists + 4 includes = 10, then ours is the 11th.
      harness.dns.set(domain.name, 'TXT', [`v=spf1 redirect=_spf.${domain.name}`]);
      harness.dns.set(`_spf.${domain.name}`, 'TXT', [`v=spf1 ip4:192.0.2.0/24 include:_a.${domain.name} a mx ptr exists:x.${domain.name} include:_b.${domain.name} include:${SPF_INCLUDE} ~all`]);
      harness.dns.set(`_a.${domain.name}`, 'TXT', ['v=spf1 ip4:198.51.100.1 -all']);
      harness.dns.set(`_b.${domain.name}`, 'TXT', [`v=spf1 include:_c.${domain.name} include:_d.${domain.name} include:_e.${domain.name} -all`]);
      for (const label of ['_c', '_d', '_e']) harness.dns.set(`${label}.${domain.name}`, 'TXT', ['v=spf1 ip6:2001:db8::/32 -all']);
      const over = await verify(domain.id);
      expect(over.spfStatus).toBe('pending');
      expect(over.recordProblems).toEqual([{ purpose: 'spf', host: domain.name, problem: expect.stringContaining('SPF record needs more than 10 DNS lookups') }]);

      // One lookup fewer, and ours is the 10th: it verifies.
      harness.dns.set(`_spf.${domain.name}`, 'TXT', [`v=spf1 include:_a.${domain.name} a mx ptr exists:x.${domain.name} include:_b.${domain.name} include:${SPF_INCLUDE} ~all`]);
      harness.dns.set(`_b.${domain.name}`, 'TXT', [`v=spf1 include:_c.${domain.name} include:_d.${domain.name} -all`]);
      expect((await verify(domain.id)).spfStatus).toBe('verified');
    });

    it('reports an include loop, a nested domain with two SPF records, and one with none, as the permanent errors they are', async () => {
      const domain = await addDomain(uniqueDomain('spfloop'));
      publish(harness.dns, domain.name, domain.dnsRecords, ['dkim', 'dmarc']);
      const problemOf = async () => {
        const response = await verify(domain.id);
        expect(response.spfStatus).toBe('pending');
        return response.recordProblems?.[0]?.problem as string;
      };

      harness.dns.set(domain.name, 'TXT', [`v=spf1 include:_loop.${domain.name} include:${SPF_INCLUDE} ~all`]);
      harness.dns.set(`_loop.${domain.name}`, 'TXT', [`v=spf1 include:${domain.name} -all`]);
      expect(await problemOf()).toContain(`loop: ${domain.name} → _loop.${domain.name} → ${domain.name}`);

      harness.dns.set(`_loop.${domain.name}`, 'TXT', ['v=spf1 -all', 'v=spf1 ip4:192.0.2.1 -all']);
      expect(await problemOf()).toMatch(new RegExp(`_loop\\.${domain.name.replace(/\./g, '\\.')} has 2 SPF records.*RFC 7208 §4\\.5`));

      harness.dns.clear(`_loop.${domain.name}`);
      expect(await problemOf()).toContain(`_loop.${domain.name}, which has no SPF record`);
    });

    it('reports a nested lookup that fails as a DNS error at the name it asked, and changes nothing', async () => {
      const domain = await addDomain(uniqueDomain('spfnestederr'));
      publish(harness.dns, domain.name, domain.dnsRecords, ['dkim', 'dmarc']);
      harness.dns.set(domain.name, 'TXT', [`v=spf1 include:_spf.${domain.name} -all`]);
      harness.dns.servfail(`_spf.${domain.name}`);
      const response = await verify(domain.id);
      expect(response).toMatchObject({ status: 'pending', spfStatus: 'pending' });
      expect(response.dnsErrors).toEqual([{ purpose: 'spf', host: `_spf.${domain.name}`, error: 'servfail' }]);
      expect(response.missingRecords).toBeUndefined();
    });

    it('takes an include naming no valid domain name as the permanent error it is, not a DNS failure, so a verified domain shows SPF missing', async () => {
      const domain = await addDomain(uniqueDomain('spfbadname'));
      publish(harness.dns, domain.name, domain.dnsRecords);
      expect((await verify(domain.id)).status).toBe('verified');

      // An empty label: no resolver can ask for it, and receivers stop with a permanent error (RFC 7208 §4.8, §5.2).
      harness.dns.set(domain.name, 'TXT', [`v=spf1 include:_spf..${domain.name} ~all`]);
      const response = await verify(domain.id);
      // Conclusive: the sub-status shows it, and the domain stays verified only while DOMAIN_FAILURE_CONFIRMATION runs.
      expect(response).toMatchObject({ status: 'verified', spfStatus: 'pending', missingRecords: [domain.dnsRecords[0]] });
      expect(response.dnsErrors).toBeUndefined();
      expect(response.recordProblems).toEqual([{ purpose: 'spf', host: domain.name, problem: expect.stringContaining(`_spf..${domain.name}`) }]);
    });

    it('reports an include whose name is a CNAME loop as the problem it is, naming the hops, not as a DNS failure', async () => {
      const domain = await addDomain(uniqueDomain('spfcnameloop'));
      publish(harness.dns, domain.name, domain.dnsRecords, ['dkim', 'dmarc']);
      harness.dns.set(domain.name, 'TXT', [`v=spf1 include:_spf.${domain.name} ~all`]);
      // A resolver chasing these answers SERVFAIL for the TXT behind them, for ever.
      harness.dns.set(`_spf.${domain.name}`, 'CNAME', `x._spf.${domain.name}`);
      harness.dns.set(`x._spf.${domain.name}`, 'CNAME', `_spf.${domain.name}`);
      const response = await verify(domain.id);
      expect(response).toMatchObject({ status: 'pending', spfStatus: 'pending', missingRecords: [domain.dnsRecords[0]] });
      expect(response.dnsErrors).toBeUndefined();
      expect(response.recordProblems).toEqual([
        { purpose: 'spf', host: domain.name, problem: expect.stringContaining(`_spf.${domain.name} → x._spf.${domain.name} → _spf.${domain.name}`) },
      ]);
    });

    it('leaves a redirect= with a macro to receivers, as an include with one: not our include, and no DNS failure', async () => {
      const domain = await addDomain(uniqueDomain('spfmacro'));
      publish(harness.dns, domain.name, domain.dnsRecords, ['dkim', 'dmarc']);
      // RFC 7208 §7: a macro expands with what only the receiver's evaluation knows (the sender, its address).
      harness.dns.set(domain.name, 'TXT', ['v=spf1 redirect=_spf.%{d}']);
      const response = await verify(domain.id);
      expect(response).toMatchObject({ status: 'pending', spfStatus: 'pending' });
      expect(response.dnsErrors).toBeUndefined();
      expect(response.recordProblems).toEqual([{ purpose: 'spf', host: domain.name, problem: expect.stringContaining(`does not contain include:${SPF_INCLUDE}`) }]);
    });

    it('takes a term that does not parse (an unknown mechanism, an ip4 with no address) anywhere in a record it evaluates as the permanent error it is (RFC 7208 §4.6), and ignores an unknown modifier (§6)', async () => {
      const domain = await addDomain(uniqueDomain('spfunknown'));
      publish(harness.dns, domain.name, domain.dnsRecords, ['dkim', 'dmarc']);
      // `ipv4:` for `ip4:` is the usual slip: receivers parse the whole record first and stop at it with a permerror.
      harness.dns.set(domain.name, 'TXT', [`v=spf1 ipv4:192.0.2.1 include:${SPF_INCLUDE} ~all`]);
      const typo = await verify(domain.id);
      expect(typo).toMatchObject({ status: 'pending', spfStatus: 'pending' });
      expect(typo.recordProblems).toEqual([{ purpose: 'spf', host: domain.name, problem: expect.stringContaining("unknown mechanism 'ipv4:192.0.2.1'") }]);

      // After ours too: the record does not parse, so no term of it is evaluated.
      harness.dns.set(domain.name, 'TXT', [`v=spf1 include:${SPF_INCLUDE} ipv4:192.0.2.1 ~all`]);
      expect((await verify(domain.id)).spfStatus).toBe('pending');

      // In a record an include leads to before ours.
      harness.dns.set(domain.name, 'TXT', [`v=spf1 include:_spf.${domain.name} include:${SPF_INCLUDE} ~all`]);
      harness.dns.set(`_spf.${domain.name}`, 'TXT', ['v=spf1 ip4:192.0.2.1 mx:mail.example.net/24 bogus -all']);
      const nested = await verify(domain.id);
      expect(nested.spfStatus).toBe('pending');
      expect(nested.recordProblems).toEqual([{ purpose: 'spf', host: domain.name, problem: expect.stringContaining(`in the SPF record of _spf.${domain.name}`) }]);

      // A known mechanism whose address is none (§5.6) does not parse either.
      harness.dns.set(domain.name, 'TXT', [`v=spf1 ip4:192.0.2 include:${SPF_INCLUDE} ~all`]);
      expect((await verify(domain.id)).recordProblems).toEqual([{ purpose: 'spf', host: domain.name, problem: expect.stringContaining("'ip4:192.0.2', which is no IPv4 address") }]);

      harness.dns.set(domain.name, 'TXT', [`v=spf1 include:${SPF_INCLUDE} exp=explain.${domain.name} custom-modifier=1 ~all`]);
      expect(await verify(domain.id)).toMatchObject({ status: 'verified', spfStatus: 'verified' });
    });
  });

  describe('DMARC (RFC 7489 §6.6.3)', () => {
    it('accepts a DMARC record reached through a CNAME at _dmarc, and an SPF record longer than one 255-byte string, joined without a blank', async () => {
      const domain = await addDomain(uniqueDomain('dmarccname'));
      publish(harness.dns, domain.name, domain.dnsRecords, ['dkim']);
      // Hosted DMARC reporting services have their customers point _dmarc at a record they keep.
      harness.dns.set(`_dmarc.${domain.name}`, 'CNAME', `${domain.name}.reports.dmarc-provider.test`);
      harness.dns.set(`${domain.name}.reports.dmarc-provider.test`, 'TXT', ['v=DMARC1; p=quarantine; sp=reject; rua=mailto:r@dmarc-provider.test']);
      // An unknown modifier (ignored, RFC 7208 §6) pads the record so that its first 255-byte string ends inside
      // include:, which a verifier joining the strings with a blank would then miss.
      const head = 'v=spf1 ip4:198.51.100.0/24 ';
      const spf = `${head}pad=${'x'.repeat(250 - head.length - 'pad= '.length)} include:${SPF_INCLUDE} ~all`;
      expect(spf.indexOf('include:')).toBe(250);
      harness.dns.set(domain.name, 'TXT', [spf]);
      expect(await verify(domain.id)).toMatchObject({ status: 'verified', spfStatus: 'verified', dmarcStatus: 'verified' });
    });

    it('reports a CNAME loop, or a chain longer than 8 hops, at _dmarc as the problem it is, naming the hops, not as a DNS failure', async () => {
      const domain = await addDomain(uniqueDomain('dmarcloop'));
      publish(harness.dns, domain.name, domain.dnsRecords, ['spf', 'dkim']);
      const dmarcHost = `_dmarc.${domain.name}`;
      harness.dns.set(dmarcHost, 'CNAME', `a.${domain.name}`);
      harness.dns.set(`a.${domain.name}`, 'CNAME', dmarcHost);
      const looped = await verify(domain.id);
      expect(looped).toMatchObject({ status: 'pending', dmarcStatus: 'pending', missingRecords: [domain.dnsRecords[2]] });
      expect(looped.dnsErrors).toBeUndefined();
      expect(looped.recordProblems).toEqual([{ purpose: 'dmarc', host: dmarcHost, problem: expect.stringContaining(`${dmarcHost} → a.${domain.name} → ${dmarcHost}`) }]);

      // Ten hops, the last one to a good record: resolvers give up before they reach it.
      harness.dns.set(dmarcHost, 'CNAME', `h1.${domain.name}`);
      for (let hop = 1; hop < 10; hop++) harness.dns.set(`h${hop}.${domain.name}`, 'CNAME', `h${hop + 1}.${domain.name}`);
      harness.dns.set(`h10.${domain.name}`, 'TXT', ['v=DMARC1; p=none']);
      const long = await verify(domain.id);
      expect(long).toMatchObject({ status: 'pending', dmarcStatus: 'pending' });
      expect(long.dnsErrors).toBeUndefined();
      expect(long.recordProblems).toEqual([{ purpose: 'dmarc', host: dmarcHost, problem: expect.stringContaining('more than 8 hops') }]);
    });

    it("accepts the organizational domain's record for a subdomain that has none, and keeps handing out _dmarc at the subdomain", async () => {
      const org = uniqueDomain('dmarcorg');
      const domain = await addDomain(`mail.${org}`);
      expect(domain.dnsRecords[2]).toMatchObject({ type: 'TXT', host: '_dmarc', purpose: 'dmarc' });
      publish(harness.dns, domain.name, domain.dnsRecords, ['spf', 'dkim']);
      harness.dns.set(`_dmarc.${org}`, 'TXT', ['v=DMARC1; p=quarantine; rua=mailto:d@example.com']);
      expect(await verify(domain.id)).toMatchObject({ status: 'verified', dmarcStatus: 'verified' });
      const got = (await api().get(`/v1/domains/${domain.id}`)).body;
      expect(got.dnsRecords[2]).toMatchObject({ host: '_dmarc', value: domain.dnsRecords[2].value, verified: true });
    });

    it("does not fall back when the subdomain has a DMARC record of its own, or when the organizational domain's has no policy", async () => {
      const org = uniqueDomain('dmarcorgno');
      const domain = await addDomain(`mail.${org}`);
      publish(harness.dns, domain.name, domain.dnsRecords, ['spf', 'dkim']);
      harness.dns.set(`_dmarc.${org}`, 'TXT', ['v=DMARC1; p=reject']);
      // The subdomain's own record is found, so it is the one that counts (step 5 ends discovery), broken or not.
      harness.dns.set(`_dmarc.${domain.name}`, 'TXT', ['v=DMARC1; p=monitor']);
      expect((await verify(domain.id)).dmarcStatus).toBe('pending');

      harness.dns.clear(`_dmarc.${domain.name}`);
      harness.dns.set(`_dmarc.${org}`, 'TXT', ['v=DMARC1; sp=none']);
      const response = await verify(domain.id);
      expect(response.dmarcStatus).toBe('pending');
      expect(response.recordProblems).toEqual([{ purpose: 'dmarc', host: `_dmarc.${domain.name}`, problem: expect.stringContaining(`_dmarc.${org}`) }]);
    });
  });

  describe('DKIM CNAME chains', () => {
    const selectorHost = (domain: { name: string; dnsRecords: Array<{ host: string }> }) => `${domain.dnsRecords[1].host}.${domain.name}`;

    it("follows the owner's CNAMEs to ours, and names a chain that loops or ends elsewhere", async () => {
      const domain = await addDomain(uniqueDomain('dkimhops'));
      publish(harness.dns, domain.name, domain.dnsRecords, ['spf', 'dmarc']);
      const selector = selectorHost(domain);
      harness.dns.set(selector, 'CNAME', `dkim.${domain.name}`);
      harness.dns.set(`dkim.${domain.name}`, 'CNAME', `a.${domain.name}`);
      harness.dns.set(`a.${domain.name}`, 'CNAME', `b.${domain.name}`);
      harness.dns.set(`b.${domain.name}`, 'CNAME', `dkim.${domain.name}`);
      const looped = await verify(domain.id);
      expect(looped).toMatchObject({ status: 'pending', dkimStatus: 'pending' });
      // The resolver's SERVFAIL for the TXT behind the loop is the loop's doing, not a DNS failure.
      expect(looped.dnsErrors).toBeUndefined();
      expect(looped.recordProblems).toEqual([
        { purpose: 'dkim', host: selector, problem: `the CNAME chain makes a loop: ${selector} → dkim.${domain.name} → a.${domain.name} → b.${domain.name} → dkim.${domain.name}` },
      ]);

      harness.dns.clear(`b.${domain.name}`);
      const ended = await verify(domain.id);
      expect(ended.dkimStatus).toBe('pending');
      expect(ended.recordProblems).toEqual([{ purpose: 'dkim', host: selector, problem: expect.stringContaining(`ends at b.${domain.name}, not ${domain.dnsRecords[1].value}`) }]);

      harness.dns.set(`b.${domain.name}`, 'CNAME', domain.dnsRecords[1].value);
      const reached = await verify(domain.id);
      expect(reached).toMatchObject({ status: 'verified', dkimStatus: 'verified' });
      expect(reached.recordProblems).toBeUndefined();
    });
  });

  describe('tracking domain CNAME chains', () => {
    const withTrackingDomain = async (prefix: string) => {
      const domain = await addDomain(uniqueDomain(prefix));
      const trackingDomain = `links.${domain.name}`;
      expect((await api().patch(`/v1/domains/${domain.id}`, { trackingDomain })).status).toBe(200);
      return { domain, trackingDomain };
    };

    it('follows a chain of CNAMEs to the tracking host', async () => {
      const { domain, trackingDomain } = await withTrackingDomain('trackchain');
      harness.dns.set(trackingDomain, 'CNAME', `edge.${domain.name}`);
      harness.dns.set(`edge.${domain.name}`, 'CNAME', 'x.cdn.example.net');
      harness.dns.set('x.cdn.example.net', 'CNAME', `${TRACKING_HOST}.`);
      const response = await verify(domain.id);
      expect(response).toMatchObject({ trackingDomain, trackingDomainStatus: 'verified' });
      expect(response.trackingDomainProblem).toBeUndefined();
    });

    it('reports a chain that loops or ends elsewhere, naming the hops', async () => {
      const { domain, trackingDomain } = await withTrackingDomain('trackloop');
      harness.dns.set(trackingDomain, 'CNAME', `a.${domain.name}`);
      harness.dns.set(`a.${domain.name}`, 'CNAME', `b.${domain.name}`);
      harness.dns.set(`b.${domain.name}`, 'CNAME', `a.${domain.name}`);
      const looped = await verify(domain.id);
      expect(looped).toMatchObject({ trackingDomainStatus: 'pending', trackingDomainProblem: expect.stringContaining(`loop: ${trackingDomain} → a.${domain.name} → b.${domain.name} → a.${domain.name}`) });

      harness.dns.clear(`b.${domain.name}`);
      const ended = await verify(domain.id);
      expect(ended).toMatchObject({ trackingDomainStatus: 'pending', trackingDomainProblem: expect.stringContaining(`ends at b.${domain.name}`) });
    });

    it('gives up after 8 hops', async () => {
      const { domain, trackingDomain } = await withTrackingDomain('tracklong');
      const hops = Array.from({ length: 9 }, (_, index) => `h${index}.${domain.name}`);
      harness.dns.set(trackingDomain, 'CNAME', hops[0]);
      hops.forEach((hop, index) => harness.dns.set(hop, 'CNAME', hops[index + 1] ?? TRACKING_HOST));
      expect(await verify(domain.id)).toMatchObject({ trackingDomainStatus: 'pending', trackingDomainProblem: expect.stringContaining('more than 8') });
    });
  });
});
