import { DomainsHarness, startDomainsHarness, stopDomainsHarness, uniqueDomain } from './domains-fixtures';

/**
 * TRACKING_BASE_URL's default, http://localhost:3000, has a host that is no
 * domain name. GET shows it as the tracking domain, and the README says
 * sending it back in a PATCH goes back to the default: so it must be accepted,
 * while other dotless names and IP addresses stay refused.
 */
describe('domains: PATCH /v1/domains/{id} with the default tracking host when it is localhost', () => {
  let harness: DomainsHarness;
  beforeAll(async () => {
    harness = await startDomainsHarness({ TRACKING_BASE_URL: 'http://localhost:3000' });
  }, 60000);
  afterAll(() => stopDomainsHarness(harness));

  const api = () => harness.stack.api;
  const addDomain = async () => {
    const response = await api().post('/v1/domains', { name: uniqueDomain('localtrack') });
    expect(response.status).toBe(201);
    return response.body;
  };

  it('takes back the trackingDomain GET shows, and goes back to the default with it', async () => {
    const domain = await addDomain();
    expect(domain).toMatchObject({ trackingDomain: 'localhost', trackingDomainStatus: 'verified' });
    expect((await api().patch(`/v1/domains/${domain.id}`, { trackingDomain: `links.${domain.name}` })).body.trackingDomainStatus).toBe('pending');

    for (const trackingDomain of ['localhost', 'LocalHost']) {
      const response = await api().patch(`/v1/domains/${domain.id}`, { trackingDomain });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ trackingDomain: 'localhost', trackingDomainStatus: 'verified' });
    }
    expect((await api().get(`/v1/domains/${domain.id}`)).body).toMatchObject({ trackingDomain: 'localhost', trackingDomainStatus: 'verified' });
  });

  it.each([
    ['another dotless name', 'intranet', /^trackingDomain: must be a valid domain name/],
    ['an IP address', '127.0.0.1', /^trackingDomain: must be a domain name, not an IP address$/],
    ['the default host with a port', 'localhost:3000', /^trackingDomain: /],
  ])('still refuses %s with 422, changing nothing', async (_, trackingDomain, message) => {
    const domain = await addDomain();
    const response = await api().patch(`/v1/domains/${domain.id}`, { trackingDomain });
    expect(response.status).toBe(422);
    expect(response.body.error).toEqual({ code: 'validation_error', message: expect.stringMatching(message) });
    expect((await api().get(`/v1/domains/${domain.id}`)).body).toMatchObject({ trackingDomain: 'localhost', trackingDomainStatus: 'verified' });
  });
});
