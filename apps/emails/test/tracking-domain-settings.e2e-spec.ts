import { eventually } from '@mailroom/testing';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';
import { receivedText, trackingHit, trackingPathsIn } from './support/received-tracking';

const TRACKING_HOST = 'track.mailroom.test';

/**
 * The domain's tracking settings (PATCH /v1/domains/{id}) as the delivery
 * worker applies them, seen in messages a real SMTP server received. Each test
 * sets them on a domain that has sent nothing yet, so no cached sender identity
 * from before the PATCH is in play (the cache's TTL is documented instead).
 */
describe('per-domain tracking settings in messages actually received', () => {
  let harness: DeliveryHarness;

  beforeAll(async () => {
    harness = await startDeliveryHarness({ TRACKING_BASE_URL: `https://${TRACKING_HOST}` });
    routeMailTo(harness.dns, 'example.test');
  });
  afterAll(() => harness?.stop());

  const api = () => harness.stack.api;
  const domainId = async (name: string) => {
    await verifiedDomain(harness, name);
    const list = await api().get('/v1/domains?limit=100');
    return list.body.data.find((domain: { name: string }) => domain.name === name).id as string;
  };
  const receivedBy = async (sent: { id: string }, address: string) => {
    await emailReaching(harness.stack, harness.stack.rootKey, sent.id, ['delivered']);
    return receivedText(harness.smtp, address);
  };

  it('sends no pixel and no rewritten links when the domain turned both switches off', async () => {
    const id = await domainId('untracked.test');
    const patched = await api().patch(`/v1/domains/${id}`, { openTracking: false, clickTracking: false });
    expect(patched.body).toMatchObject({ openTracking: false, clickTracking: false });

    const sent = await api().post('/v1/emails', {
      from: 'hi@untracked.test',
      to: 'off@example.test',
      subject: 'Domain says no tracking',
      html: '<html><body><p><a href="https://untracked.test/offer">Offer</a></p></body></html>',
    });
    expect(sent.status).toBe(202);
    const raw = await receivedBy(sent.body, 'off@example.test');
    expect(raw).toContain('href="https://untracked.test/offer"');
    expect(raw).not.toContain('/t/o/');
    expect(raw).not.toContain('/t/c/');
    expect(raw).not.toContain(TRACKING_HOST);
  });

  it('still lets one email turn tracking back on over the domain switch', async () => {
    const id = await domainId('optin.test');
    await api().patch(`/v1/domains/${id}`, { openTracking: false, clickTracking: false });
    const sent = await api().post('/v1/emails', {
      from: 'hi@optin.test',
      to: 'override@example.test',
      subject: 'This one is tracked',
      html: '<p><a href="https://optin.test/x">X</a></p>',
      tracking: { opens: true },
    });
    const raw = await receivedBy(sent.body, 'override@example.test');
    expect(raw).toMatch(new RegExp(`<img src="https://${TRACKING_HOST.replace(/\./g, '\\.')}/t/o/`));
    expect(raw).toContain('href="https://optin.test/x"');
  });

  it('puts the pixel and links under a verified custom tracking domain, and they count opens and clicks', async () => {
    const id = await domainId('branded.test');
    const trackingDomain = 'links.branded.test';
    expect((await api().patch(`/v1/domains/${id}`, { trackingDomain })).body.trackingDomainStatus).toBe('pending');
    harness.dns.set(trackingDomain, 'CNAME', TRACKING_HOST);
    const verified = await api().post(`/v1/domains/${id}/verify`);
    expect(verified.body).toMatchObject({ status: 'verified', trackingDomain, trackingDomainStatus: 'verified' });

    const sent = await api().post('/v1/emails', {
      from: 'Branded <hi@branded.test>',
      to: 'branded@example.test',
      subject: 'Branded links',
      html: '<html><body><p><a href="https://branded.test/deal">Deal</a></p></body></html>',
    });
    const raw = await receivedBy(sent.body, 'branded@example.test');
    const { pixel, links } = trackingPathsIn(raw, trackingDomain);
    expect(pixel).not.toBeNull();
    expect(links).toHaveLength(1);
    expect(raw).not.toContain(TRACKING_HOST);

    // The CNAME leads to the same gateway, which the reader's browser asks under the tracking domain's name.
    const gif = await trackingHit(harness.stack.baseUrl, pixel!, trackingDomain);
    expect(gif.headers['content-type']).toBe('image/gif');
    const click = await trackingHit(harness.stack.baseUrl, links[0], trackingDomain);
    expect(click.status).toBe(302);
    expect(click.headers.location).toBe('https://branded.test/deal');
    await eventually(async () => {
      const email = (await api().get(`/v1/emails/${sent.body.id}`)).body;
      return email.opens === 1 && email.clicks === 1;
    });
  });
});
