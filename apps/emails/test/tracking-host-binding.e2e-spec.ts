import { trackingTokensFromConfig } from '@mailroom/auth';
import { eventually, scrapeMetrics, startExtraGateway } from '@mailroom/testing';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';
import { receivedText, trackingHit, trackingPathsIn } from './support/received-tracking';

const DEFAULT_HOST = 'track.mailroom.test';
/** The sender's own verified tracking domain, which its mail's links are under. */
const BRANDED_HOST = 'links.branded.test';
/** Another customer's verified tracking domain: a CNAME to the same gateway. */
const OTHER_HOST = 'links.other.test';

/**
 * Anyone who can send signs a link to any URL by mailing it to themselves. Served from another customer's
 * tracking domain, that token would be an open redirect under the other customer's name; so a token is
 * honoured only on the host its message put it under, and answers anywhere else as a forged one does.
 */
describe('tracking links honoured only on the host they were sent under', () => {
  let harness: DeliveryHarness;
  const api = () => harness.stack.api;
  const base = () => harness.stack.baseUrl;

  beforeAll(async () => {
    harness = await startDeliveryHarness({ TRACKING_BASE_URL: `https://${DEFAULT_HOST}` });
    routeMailTo(harness.dns, 'example.test');
    await verifiedTrackingDomain('branded.test', BRANDED_HOST);
    await verifiedTrackingDomain('other.test', OTHER_HOST);
  });
  afterAll(() => harness?.stop());

  async function verifiedTrackingDomain(name: string, trackingDomain: string): Promise<void> {
    const { id } = await verifiedDomain(harness, name);
    await api().patch(`/v1/domains/${id}`, { trackingDomain });
    harness.dns.set(trackingDomain, 'CNAME', DEFAULT_HOST);
    expect((await api().post(`/v1/domains/${id}/verify`)).body.trackingDomainStatus).toBe('verified');
  }

  /** An email from branded.test with one link, as `to` received it: its id and the paths of its pixel and link. */
  async function receivedBrandedEmail(to: string): Promise<{ id: string; pixel: string; link: string }> {
    const sent = await api().post('/v1/emails', {
      from: 'Branded <hi@branded.test>',
      to,
      subject: 'Branded links',
      html: '<html><body><p><a href="https://branded.test/deal">Deal</a></p></body></html>',
    });
    expect(sent.status).toBe(202);
    await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['delivered']);
    const { pixel, links } = trackingPathsIn(receivedText(harness.smtp, to), BRANDED_HOST);
    expect(pixel).not.toBeNull();
    expect(links).toHaveLength(1);
    return { id: sent.body.id, pixel: pixel!, link: links[0] };
  }

  const countsOf = async (id: string) => {
    const email = (await api().get(`/v1/emails/${id}`)).body;
    return { opens: email.opens, clicks: email.clicks };
  };
  const mismatches = async () =>
    (await scrapeMetrics(harness.stack.opsUrl('gateway'))).find('mailroom_tracking_host_mismatches_total').reduce((sum, sample) => sum + sample.value, 0);

  it('answers a link and a pixel requested under another tracking domain or the default host as forged tokens, and counts nothing', async () => {
    const email = await receivedBrandedEmail('reader@example.test');
    const mismatchesBefore = await mismatches();
    for (const host of [OTHER_HOST, DEFAULT_HOST]) {
      const forged = await trackingHit(base(), '/t/c/not-a-token', host);
      for (const method of ['GET', 'HEAD']) {
        const click = await trackingHit(base(), email.link, host, method);
        expect({ host, method, status: click.status, location: click.headers.location }).toEqual({ host, method, status: forged.status, location: undefined });
        if (method === 'GET') expect(JSON.parse(click.body.toString()).error.code).toBe(JSON.parse(forged.body.toString()).error.code);
        const pixel = await trackingHit(base(), email.pixel, host, method);
        expect({ host, method, status: pixel.status, type: pixel.headers['content-type'] }).toEqual({ host, method, status: 200, type: 'image/gif' });
      }
    }
    // Two hosts, two routes, GET and HEAD.
    expect((await mismatches()) - mismatchesBefore).toBe(8);
    // A hit is recorded after its answer, but a refused one is refused before it and never sent to be recorded;
    // the hits under the right host below then count exactly one each.
    expect(await countsOf(email.id)).toEqual({ opens: 0, clicks: 0 });

    const click = await trackingHit(base(), email.link, BRANDED_HOST);
    expect({ status: click.status, location: click.headers.location }).toEqual({ status: 302, location: 'https://branded.test/deal' });
    expect((await trackingHit(base(), email.pixel, BRANDED_HOST)).status).toBe(200);
    await eventually(async () => JSON.stringify(await countsOf(email.id)) === JSON.stringify({ opens: 1, clicks: 1 }));
    // The host as a browser may also write it: any case, with the port.
    expect((await trackingHit(base(), email.link, 'LINKS.Branded.test:443', 'HEAD')).status).toBe(302);
  });

  it('still honours, on any host, a token minted before tokens named their host (mail already delivered)', async () => {
    const { id } = await receivedBrandedEmail('early@example.test');
    const tokens = trackingTokensFromConfig(harness.stack.configFor('gateway'));
    const url = 'https://branded.test/from-before';
    const click = await trackingHit(base(), `/t/c/${tokens.sign({ emailId: id, kind: 'click', url })}`, OTHER_HOST);
    expect({ status: click.status, location: click.headers.location }).toEqual({ status: 302, location: url });
    expect((await trackingHit(base(), `/t/o/${tokens.sign({ emailId: id, kind: 'open' })}.gif`, OTHER_HOST)).status).toBe(200);
    await eventually(async () => JSON.stringify(await countsOf(id)) === JSON.stringify({ opens: 1, clicks: 1 }));
  });

  it('answers a token minted before tokens named their host as forged once TRACKING_UNBOUND_TOKENS=refuse', async () => {
    const { id } = await receivedBrandedEmail('late@example.test');
    const tokens = trackingTokensFromConfig(harness.stack.configFor('gateway'));
    const refusing = await startExtraGateway(harness.stack, { TRACKING_UNBOUND_TOKENS: 'refuse' });
    try {
      const unbound = await trackingHit(refusing.baseUrl, `/t/c/${tokens.sign({ emailId: id, kind: 'click', url: 'https://branded.test/old' })}`, BRANDED_HOST);
      expect({ status: unbound.status, location: unbound.headers.location }).toEqual({ status: 404, location: undefined });
      expect((await trackingHit(refusing.baseUrl, `/t/o/${tokens.sign({ emailId: id, kind: 'open' })}.gif`, BRANDED_HOST)).status).toBe(200);
      const bound = await trackingHit(refusing.baseUrl, `/t/c/${tokens.sign({ emailId: id, kind: 'click', url: 'https://branded.test/new', host: BRANDED_HOST })}`, BRANDED_HOST);
      expect({ status: bound.status, location: bound.headers.location }).toEqual({ status: 302, location: 'https://branded.test/new' });
      await eventually(async () => (await countsOf(id)).clicks === 1);
      expect((await countsOf(id)).opens).toBe(0);
    } finally {
      await refusing.close();
    }
  });

  it('reads the host a proxy in TRUSTED_PROXIES forwarded in X-Forwarded-Host, and ignores one from anyone else', async () => {
    const email = await receivedBrandedEmail('proxied@example.test');
    // The stack's gateway trusts no proxy: the Host it was asked under counts, whatever the request says it was forwarded for.
    expect((await trackingHit(base(), email.link, OTHER_HOST, 'GET', { 'x-forwarded-host': BRANDED_HOST })).status).toBe(404);
    const proxied = await startExtraGateway(harness.stack, { TRUSTED_PROXIES: ['127.0.0.1'] });
    try {
      // Behind the proxy every request comes to the gateway's own address; the reader's host is the forwarded one.
      expect((await trackingHit(proxied.baseUrl, email.link, BRANDED_HOST, 'GET', { 'x-forwarded-host': OTHER_HOST })).status).toBe(404);
      expect(await countsOf(email.id)).toEqual({ opens: 0, clicks: 0 });
      const click = await trackingHit(proxied.baseUrl, email.link, new URL(proxied.baseUrl).host, 'GET', { 'x-forwarded-host': BRANDED_HOST });
      expect({ status: click.status, location: click.headers.location }).toEqual({ status: 302, location: 'https://branded.test/deal' });
      await eventually(async () => (await countsOf(email.id)).clicks === 1);
    } finally {
      await proxied.close();
    }
  });
});
