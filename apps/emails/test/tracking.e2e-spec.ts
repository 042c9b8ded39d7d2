import { trackingTokensFromConfig } from '@mailroom/auth';
import { eventually, startStack, Stack } from '@mailroom/testing';

describe('open and click tracking routes', () => {
  let stack: Stack;
  const tokens = trackingTokensFromConfig({ NODE_ENV: 'test', ENCRYPTION_KEY: null });

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  async function sendTestEmail(): Promise<string> {
    const { key } = await stack.issueKey({ name: 'tracking', mode: 'test' });
    const sent = await stack.api.withKey(key).post('/v1/emails', {
      from: 'Acme <hello@acme.test>',
      to: 'delivered@example.com',
      subject: 'Tracked',
      html: '<p><a href="https://acme.test/welcome">Welcome</a></p>',
    });
    expect(sent.status).toBeLessThan(300);
    return sent.body.id;
  }

  it('answers the pixel with a transparent GIF and no-cache headers, and counts the open', async () => {
    const emailId = await sendTestEmail();
    const pixel = await fetch(`${stack.baseUrl}/t/o/${tokens.sign({ emailId, kind: 'open' })}.gif`, { headers: { 'user-agent': 'MailClient/1.0' } });
    expect(pixel.status).toBe(200);
    expect(pixel.headers.get('content-type')).toBe('image/gif');
    expect(pixel.headers.get('cache-control')).toContain('no-store');
    expect(Buffer.from(await pixel.arrayBuffer()).subarray(0, 6).toString()).toBe('GIF89a');

    const email = await eventually(async () => {
      const response = await stack.api.get(`/v1/emails/${emailId}`, { key: (await stack.issueKey({ mode: 'test' })).key });
      return response.body.opens === 1 ? response.body : undefined;
    });
    expect(email.firstOpenedAt).toEqual(expect.any(String));
    expect(Date.parse(email.lastOpenedAt)).toBeGreaterThanOrEqual(Date.parse(email.firstOpenedAt));
  });

  it('redirects a signed link with 302 to the original URL and counts the click', async () => {
    const emailId = await sendTestEmail();
    const url = 'https://acme.test/pricing?plan=pro';
    const response = await fetch(`${stack.baseUrl}/t/c/${tokens.sign({ emailId, kind: 'click', url })}`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(url);
    const { key } = await stack.issueKey({ mode: 'test' });
    await eventually(async () => (await stack.api.get(`/v1/emails/${emailId}`, { key })).body.clicks === 1);
  });

  it('redirects a link holding characters a header cannot carry as they are, encoded as a browser follows it, and counts the click', async () => {
    const emailId = await sendTestEmail();
    const url = 'https://ru.wikipedia.org/wiki/Москва';
    const response = await fetch(`${stack.baseUrl}/t/c/${tokens.sign({ emailId, kind: 'click', url })}`, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://ru.wikipedia.org/wiki/%D0%9C%D0%BE%D1%81%D0%BA%D0%B2%D0%B0');
    const { key } = await stack.issueKey({ mode: 'test' });
    await eventually(async () => (await stack.api.get(`/v1/emails/${emailId}`, { key })).body.clicks === 1);
  });

  it('answers HEAD (link scanners, proxies) as GET but counts only the GET', async () => {
    const emailId = await sendTestEmail();
    const url = 'https://acme.test/scanned';
    const pixelUrl = `${stack.baseUrl}/t/o/${tokens.sign({ emailId, kind: 'open' })}.gif`;
    const linkUrl = `${stack.baseUrl}/t/c/${tokens.sign({ emailId, kind: 'click', url })}`;
    // The tracking routes record a hit before they answer, so a HEAD that counted would be counted by now.
    expect((await fetch(pixelUrl, { method: 'HEAD' })).status).toBe(200);
    const scanned = await fetch(linkUrl, { method: 'HEAD', redirect: 'manual' });
    expect(scanned.status).toBe(302);
    expect(scanned.headers.get('location')).toBe(url);
    await fetch(pixelUrl);
    await fetch(linkUrl, { redirect: 'manual' });
    const { key } = await stack.issueKey({ mode: 'test' });
    const email = await eventually(async () => {
      const response = await stack.api.get(`/v1/emails/${emailId}`, { key });
      return response.body.opens >= 1 && response.body.clicks >= 1 ? response.body : undefined;
    });
    expect({ opens: email.opens, clicks: email.clicks }).toEqual({ opens: 1, clicks: 1 });
  });

  /**
   * The routes are public and every counted hit writes the email row and an event that every subscribed
   * webhook is POSTed: a script looping over one pixel or link would turn each GET into that much work and
   * flood the sender's webhooks. A repeat from the same client within the window is answered but not counted,
   * however its token is spelled (base64url lets the same bytes be written several ways).
   */
  it('counts a repeat of one pixel or link from the same client once within a minute, however the token is spelled', async () => {
    const emailId = await sendTestEmail();
    const openToken = tokens.sign({ emailId, kind: 'open' });
    for (const spelling of [openToken, openToken, `${openToken}=`, `${openToken}==`]) {
      expect((await fetch(`${stack.baseUrl}/t/o/${spelling}.gif`)).status).toBe(200);
    }
    const linkUrl = `${stack.baseUrl}/t/c/${tokens.sign({ emailId, kind: 'click', url: 'https://acme.test/one' })}`;
    for (let i = 0; i < 5; i++) expect((await fetch(linkUrl, { redirect: 'manual' })).status).toBe(302);
    // Another link of the same email is another hit.
    expect((await fetch(`${stack.baseUrl}/t/c/${tokens.sign({ emailId, kind: 'click', url: 'https://acme.test/two' })}`, { redirect: 'manual' })).status).toBe(302);
    // A hit is recorded after the answer, but a repeat is dropped before it (no request for it ever leaves the
    // gateway): the counts reach one open and two clicks, and no repeat can add to them later.
    const { key } = await stack.issueKey({ mode: 'test' });
    const counts = async () => {
      const email = (await stack.api.get(`/v1/emails/${emailId}`, { key })).body;
      return { opens: email.opens, clicks: email.clicks };
    };
    await eventually(async () => JSON.stringify(await counts()) === JSON.stringify({ opens: 1, clicks: 2 }), 5000).catch(() => undefined);
    expect(await counts()).toEqual({ opens: 1, clicks: 2 });
  });

  it('never redirects for a forged or altered token', async () => {
    const emailId = await sendTestEmail();
    const token = tokens.sign({ emailId, kind: 'click', url: 'https://acme.test/a' });
    const [, signature] = token.split('.');
    const forgedBody = Buffer.from(JSON.stringify([emailId, 'c', 'https://evil.example'])).toString('base64url');
    for (const bad of [`${forgedBody}.${signature}`, `${token}x`, 'nope']) {
      const response = await fetch(`${stack.baseUrl}/t/c/${bad}`, { redirect: 'manual' });
      expect(response.status).toBe(404);
      expect(response.headers.get('location')).toBeNull();
    }
    const { key } = await stack.issueKey({ mode: 'test' });
    expect((await stack.api.get(`/v1/emails/${emailId}`, { key })).body.clicks).toBe(0);
  });
});
