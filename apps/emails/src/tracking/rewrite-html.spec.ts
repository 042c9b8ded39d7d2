import { TRACKING_TOKEN_MAX_LENGTH, TrackingTokens } from '@mailroom/auth';
import { randomBytes } from 'node:crypto';
import { rewriteHtmlForTracking } from './rewrite-html';

describe(rewriteHtmlForTracking.name, () => {
  const tokens = new TrackingTokens(randomBytes(32).toString('base64'));
  const base = { emailId: 'email_X', trackingBaseUrl: 'https://t.example.com/', tokens, opens: true, clicks: true };

  it('rewrites http and https links to signed redirects and keeps the original URL in the token', () => {
    const html = '<p><a href="https://a.example/x?y=1&amp;z=2">A</a> <a class="b" href=\'http://b.example\'>B</a></p>';
    const out = rewriteHtmlForTracking(html, { ...base, opens: false });
    const targets = [...out.matchAll(/href=["']https:\/\/t\.example\.com\/t\/c\/([^"']+)["']/g)].map((match) => tokens.verify(match[1])?.url);
    expect(targets).toEqual(['https://a.example/x?y=1&z=2', 'http://b.example']);
    expect(out).toContain('class="b"');
  });

  it('signs the link a browser follows: numeric and named character references decoded', () => {
    const html =
      '<a href="https://a.example/x?y=1&#38;z=2">A</a><a href="https://b.example/?q=&#x22;hi&#x22;&#61;1">B</a>' +
      '<a href="https://c.example/?a=1&amp;b=&quot;2&quot;">C</a><a href="https://d.example/?copy=1&ampx=2">D</a>';
    const out = rewriteHtmlForTracking(html, { ...base, opens: false });
    const targets = [...out.matchAll(/\/t\/c\/([^"']+)/g)].map((match) => tokens.verify(match[1])?.url);
    expect(targets).toEqual(['https://a.example/x?y=1&z=2', 'https://b.example/?q="hi"=1', 'https://c.example/?a=1&b="2"', 'https://d.example/?copy=1&ampx=2']);
  });

  it('rewrites the href a browser follows, not a data-href beside it', () => {
    const html = '<a data-href="https://data.example/x" class="b"\nhref="https://real.example/y">A</a>';
    const out = rewriteHtmlForTracking(html, { ...base, opens: false });
    expect(out).toContain('data-href="https://data.example/x"');
    const targets = [...out.matchAll(/\/t\/c\/([^"']+)/g)].map((match) => tokens.verify(match[1])?.url);
    expect(targets).toEqual(['https://real.example/y']);
  });

  const clickTargets = (out: string) => [...out.matchAll(/\/t\/c\/([\w.-]+)/g)].map((match) => tokens.verify(match[1])?.url);

  it('rewrites links however their href is written: unquoted, quoted around the other quote, padded with whitespace', () => {
    const html =
      '<a href=https://unquoted.example/x>U</a> <a href="https://dq.example/?n=O\'Brien">D</a> <a href=\'https://sq.example/?q="x"\'>S</a>' +
      ' <a href="\n  https://padded.example/y\t">P</a> <A HREF=https://upper.example/>C</A>';
    const out = rewriteHtmlForTracking(html, { ...base, opens: false });
    expect(clickTargets(out)).toEqual([
      'https://unquoted.example/x',
      "https://dq.example/?n=O'Brien",
      'https://sq.example/?q="x"',
      'https://padded.example/y',
      'https://upper.example/',
    ]);
    expect(out.replace(/https:\/\/t\.example\.com\/t\/c\/[\w.-]+/g, 'TRACKED')).toBe(
      '<a href="TRACKED">U</a> <a href="TRACKED">D</a> <a href=\'TRACKED\'>S</a> <a href="TRACKED">P</a> <A HREF="TRACKED">C</A>',
    );
  });

  it('rewrites the links of image maps and of Outlook\'s VML buttons, which Outlook readers click instead of the <a>', () => {
    const html =
      '<!--[if mso]><v:roundrect xmlns:v="urn:schemas-microsoft-com:vml" href="https://button.example/go" arcsize="10%"><w:anchorlock/>' +
      '<center>Go</center></v:roundrect><![endif]--><map name="m"><area shape="rect" coords="0,0,1,1" href="https://map.example/a"></map>';
    const out = rewriteHtmlForTracking(html, { ...base, opens: false });
    expect(clickTargets(out)).toEqual(['https://button.example/go', 'https://map.example/a']);
    expect(out.replace(/https:\/\/t\.example\.com\/t\/c\/[\w.-]+/g, 'TRACKED')).toBe(html.replace(/https:\/\/(button|map)\.example\/\w+/g, 'TRACKED'));
  });

  it('reads a tag\'s attributes as HTML does: a > inside a quoted value does not end the tag, an href inside another value is no href', () => {
    const html = '<a title="1 > 0" href="https://gt.example/">G</a><a title=" href=https://fake.example/" href="https://real.example/">R</a>';
    const out = rewriteHtmlForTracking(html, { ...base, opens: false });
    expect(clickTargets(out)).toEqual(['https://gt.example/', 'https://real.example/']);
    expect(out).toContain('title=" href=https://fake.example/"');
  });

  it('keeps an unsubscribe link written with character references as it is', () => {
    const html = '<a href="https://x.example/&#117;nsubscribe?u=1">u</a>';
    expect(rewriteHtmlForTracking(html, { ...base, opens: false })).toBe(html);
  });

  it('leaves mailto, relative and unsubscribe links alone', () => {
    const html =
      '<a href="mailto:x@y.z">m</a><a href="/rel">r</a><a href="https://x.example/unsubscribe?u=1">u</a>' +
      '<a data-mailroom-untracked href="https://keep.example">k</a><a href="https://list.example/u">l</a>';
    const out = rewriteHtmlForTracking(html, { ...base, opens: false, unsubscribeUrl: 'https://list.example/u' });
    expect(out).toBe(html);
  });

  it('leaves a link too long for a routable token as it is, and still rewrites the others', () => {
    const long = `https://long.example/?q=${'x'.repeat(4000)}`;
    const html = `<a href="${long}">L</a><a href="https://short.example/">S</a>`;
    const out = rewriteHtmlForTracking(html, { ...base, opens: false });
    expect(out).toContain(`href="${long}"`);
    const tokensInOut = [...out.matchAll(/\/t\/c\/([^"']+)/g)].map((match) => match[1]);
    expect(tokensInOut.map((token) => tokens.verify(token)?.url)).toEqual(['https://short.example/']);
    expect(Math.max(...tokensInOut.map((token) => token.length))).toBeLessThanOrEqual(TRACKING_TOKEN_MAX_LENGTH);
  });

  it('adds one open pixel before </body>, or at the end without one', () => {
    const withBody = rewriteHtmlForTracking('<html><body><p>hi</p></body></html>', { ...base, clicks: false });
    expect(withBody).toMatch(/<img src="https:\/\/t\.example\.com\/t\/o\/[^"]+\.gif"[^>]*><\/body><\/html>$/);
    const token = /\/t\/o\/([^"]+)\.gif/.exec(withBody)![1];
    expect(tokens.verify(token)).toEqual({ emailId: 'email_X', kind: 'open', host: 't.example.com' });
    expect(rewriteHtmlForTracking('<p>hi</p>', { ...base, clicks: false })).toMatch(/^<p>hi<\/p><img /);
  });

  it('puts the pixel in as written when the tracking URL holds what String.replace reads as a pattern ($&, $\')', () => {
    const out = rewriteHtmlForTracking('<html><body>hi</body></html>', { ...base, clicks: false, trackingBaseUrl: "https://t.example.com/$'$&" });
    expect(out).toMatch(/^<html><body>hi<img src="https:\/\/t\.example\.com\/\$'\$&\/t\/o\/[^"]+\.gif"[^>]*><\/body><\/html>$/);
  });

  it('binds every token to the tracking host, written as the request to it will name it (lower-case punycode, no port)', () => {
    const out = rewriteHtmlForTracking('<a href="https://a.example/">A</a>', { ...base, trackingBaseUrl: 'https://Links.Bücher.de:8443/mail/' });
    const claims = [...out.matchAll(/\/t\/[co]\/([\w.-]+?)(?:\.gif)?"/g)].map((match) => tokens.verify(match[1]));
    expect(claims).toEqual([
      { emailId: 'email_X', kind: 'click', url: 'https://a.example/', host: 'links.xn--bcher-kva.de' },
      { emailId: 'email_X', kind: 'open', host: 'links.xn--bcher-kva.de' },
    ]);
  });

  it('puts the pixel before a closing body tag written with white space before its >', () => {
    expect(rewriteHtmlForTracking('<body>hi</body >\n<!-- footer -->', { ...base, clicks: false })).toMatch(/^<body>hi<img [^>]+><\/body >\n<!-- footer -->$/);
  });

  it('changes nothing when both switches are off', () => {
    const html = '<a href="https://a.example">A</a>';
    expect(rewriteHtmlForTracking(html, { ...base, opens: false, clicks: false })).toBe(html);
  });
});
