import { eventually } from '@mailroom/testing';
import { DomainsHarness, publish, startDomainsHarness, stopDomainsHarness, uniqueDomain } from './domains-fixtures';

const TRACKING_HOST = 'track.mailroom.test';

describe('domains: a tracking domain set while a check of the domain looks its records up', () => {
  let harness: DomainsHarness;
  beforeAll(async () => {
    // The first backoff step well past the slowed lookup below, so only the check the PATCH pulled forward can verify
    // the tracking domain within the test; the verified re-check stays at its default 6 h.
    harness = await startDomainsHarness({ TRACKING_BASE_URL: `https://${TRACKING_HOST}`, DOMAIN_RECHECK_SCHEDULE: '3s', DNS_TIMEOUT_MS: '6000' });
  }, 60000);
  afterAll(() => stopDomainsHarness(harness));

  const api = () => harness.stack.api;

  it('is still checked at the first DOMAIN_RECHECK_SCHEDULE step: the check that did not look at it does not put it off until the verified re-check', async () => {
    const created = await api().post('/v1/domains', { name: uniqueDomain('patchmidcheck') });
    expect(created.status).toBe(201);
    const domain = created.body;
    publish(harness.dns, domain.name, domain.dnsRecords);
    expect((await api().post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');

    const trackingDomain = `links.${domain.name}`;
    harness.dns.set(trackingDomain, 'CNAME', TRACKING_HOST);
    const dmarcHost = `_dmarc.${domain.name}`;
    harness.dns.delay(dmarcHost, 2000);
    const asked = harness.dns.queries.length;
    const verifying = api().post(`/v1/domains/${domain.id}/verify`);
    // The verify read the row and is waiting on DNS: the PATCH lands in the middle of its check.
    await eventually(() => harness.dns.queries.slice(asked).some((query) => query.name.toLowerCase() === dmarcHost));
    const patched = await api().patch(`/v1/domains/${domain.id}`, { trackingDomain });
    expect(patched.body).toMatchObject({ trackingDomain, trackingDomainStatus: 'pending' });
    const verified = await verifying;
    expect(verified.body).toMatchObject({ status: 'verified', trackingDomain, trackingDomainStatus: 'pending' });
    harness.dns.delay(dmarcHost, 0);

    const got = await eventually(async () => {
      const response = await api().get(`/v1/domains/${domain.id}`);
      return response.body.trackingDomainStatus === 'verified' ? response.body : undefined;
    });
    expect(got).toMatchObject({ status: 'verified', trackingDomain });
  }, 30000);
});
