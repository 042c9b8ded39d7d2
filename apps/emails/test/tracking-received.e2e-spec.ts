import { eventually } from '@mailroom/testing';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';
import { receivedText, trackingHit, trackingPathsIn } from './support/received-tracking';

const TRACKING_HOST = 'track.mailroom.test';

describe('tracking in a message actually received', () => {
  let harness: DeliveryHarness;

  beforeAll(async () => {
    harness = await startDeliveryHarness({ TRACKING_BASE_URL: `https://${TRACKING_HOST}` });
    routeMailTo(harness.dns, 'example.test');
    await verifiedDomain(harness, 'acme.test');
  });
  afterAll(() => harness?.stop());

  it('carries a pixel and rewritten links under the tracking host that count opens and clicks', async () => {
    const api = harness.stack.api;
    const sent = await api.post('/v1/emails', {
      from: 'Acme <hi@acme.test>',
      to: 'reader@example.test',
      subject: 'Tracked',
      html: '<html><body><p><a href="https://acme.test/offer?x=1&amp;y=2">Offer</a> <a href="https://acme.test/unsubscribe">Unsubscribe</a></p></body></html>',
    });
    expect(sent.status).toBe(202);
    await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['delivered']);
    const raw = receivedText(harness.smtp, 'reader@example.test');

    const { pixel, links } = trackingPathsIn(raw, TRACKING_HOST);
    expect(pixel).not.toBeNull();
    expect(links).toHaveLength(1);
    expect(raw).toContain('href="https://acme.test/unsubscribe"');

    // Requested as the reader's browser does: under the tracking host, which leads to this gateway.
    const gif = await trackingHit(harness.stack.baseUrl, pixel!, TRACKING_HOST);
    expect(gif.headers['content-type']).toBe('image/gif');
    const click = await trackingHit(harness.stack.baseUrl, links[0], TRACKING_HOST);
    expect(click.status).toBe(302);
    expect(click.headers.location).toBe('https://acme.test/offer?x=1&y=2');

    const email = await eventually(async () => {
      const response = await api.get(`/v1/emails/${sent.body.id}`);
      return response.body.opens === 1 && response.body.clicks === 1 ? response.body : undefined;
    });
    expect(email.firstOpenedAt).toEqual(expect.any(String));
  });

  it('tracks the Outlook VML button and an unquoted link of a received message, and changes nothing else', async () => {
    const html =
      '<html><body><!--[if mso]><v:roundrect xmlns:v="urn:schemas-microsoft-com:vml" href="https://acme.test/button" arcsize="8%">' +
      '<center>Go</center></v:roundrect><![endif]--><!--[if !mso]><!--><a href=https://acme.test/button>Go</a><!--<![endif]--></body></html>';
    const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'outlook@example.test', subject: 'Button', html, tracking: { opens: false } });
    expect(sent.status).toBe(202);
    await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['delivered']);
    const received = /<html>[\s\S]*<\/html>/.exec(receivedText(harness.smtp, 'outlook@example.test'))![0];

    const { links } = trackingPathsIn(received, TRACKING_HOST);
    expect(links).toHaveLength(2);
    expect(received.replace(/href="https:\/\/track\.mailroom\.test\/t\/c\/[^"]+"/g, 'href=TRACKED')).toBe(html.replace(/href="?https:\/\/acme\.test\/button"?/g, 'href=TRACKED'));
    for (const link of links) {
      const click = await trackingHit(harness.stack.baseUrl, link, TRACKING_HOST);
      expect(click.headers.location).toBe('https://acme.test/button');
    }
  });

  it('leaves links in comments and scripts as written, and signs a link and a pixel copied from an earlier tracked message for the new one', async () => {
    const api = harness.stack.api;
    const first = await api.post('/v1/emails', { from: 'hi@acme.test', to: 'first@example.test', subject: 'First', html: '<a href="https://acme.test/first">F</a>' });
    await emailReaching(harness.stack, harness.stack.rootKey, first.body.id, ['delivered']);
    const firstTracking = trackingPathsIn(receivedText(harness.smtp, 'first@example.test'), TRACKING_HOST);
    const copied = firstTracking.links[0];
    const copiedPixel = firstTracking.pixel!;

    const html =
      `<html><body><!-- <a href="https://acme.test/old">Old</a> --><script>var a = '<a href=https://acme.test/script>';</script>` +
      `<a href="https://${TRACKING_HOST}${copied}">Again</a><a href="https://acme.test/new">New</a><img src="https://${TRACKING_HOST}${copiedPixel}" alt=""></body></html>`;
    const second = await api.post('/v1/emails', { from: 'hi@acme.test', to: 'second@example.test', subject: 'Second', html });
    await emailReaching(harness.stack, harness.stack.rootKey, second.body.id, ['delivered']);
    const received = /<html>[\s\S]*<\/html>/.exec(receivedText(harness.smtp, 'second@example.test'))![0];

    const { pixel, links } = trackingPathsIn(received, TRACKING_HOST);
    expect(links).toHaveLength(2);
    expect(links[0]).not.toBe(copied);
    expect(pixel).not.toBe(copiedPixel);
    expect(received.match(/\/t\/o\//g)).toHaveLength(1);
    expect(received.replace(pixel!, '/PIXEL').replace(links[0], '/AGAIN').replace(links[1], '/NEW')).toBe(
      html.replace(copiedPixel, '/PIXEL').replace(copied, '/AGAIN').replace('https://acme.test/new', `https://${TRACKING_HOST}/NEW`),
    );
    const click = await trackingHit(harness.stack.baseUrl, links[0], TRACKING_HOST);
    expect(click.headers.location).toBe('https://acme.test/first');
    await trackingHit(harness.stack.baseUrl, pixel!, TRACKING_HOST);
    await eventually(async () => {
      const secondNow = await api.get(`/v1/emails/${second.body.id}`);
      return secondNow.body.opens === 1 && secondNow.body.clicks === 1;
    });
    expect((await api.get(`/v1/emails/${first.body.id}`)).body).toMatchObject({ clicks: 0, opens: 0 });
  });

  it('leaves the html alone when the email turns tracking off', async () => {
    const html = '<p><a href="https://acme.test/plain">Plain</a></p>';
    const sent = await harness.stack.api.post('/v1/emails', {
      from: 'hi@acme.test',
      to: 'quiet@example.test',
      subject: 'Untracked',
      html,
      tracking: { opens: false, clicks: false },
    });
    await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['delivered']);
    const raw = receivedText(harness.smtp, 'quiet@example.test');
    expect(raw).toContain('href="https://acme.test/plain"');
    expect(raw).not.toContain('/t/o/');
  });
});
