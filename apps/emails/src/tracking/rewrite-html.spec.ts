import { TRACKING_TOKEN_MAX_LENGTH, TrackingTokens } from '@mailroom/auth';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { scanMarkup } from './html-markup';
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

  const clicksOnly = Object.assign({}, base, { opens: false });
  const opensOnly = Object.assign({}, base, { clicks: false });
  const tracked = (out: string) => out.replace(/https:\/\/t\.example\.com\/t\/c\/[\w.-]+/g, 'TRACKED');

  it('leaves links in comments and in the raw text of script, style, textarea, title, xmp, iframe, noembed and noframes as they are', () => {
    const dead =
      '<!-- <a href="https://old.example/">old</a> --><!---->' +
      '<SCRIPT>var a = \'<a href=https://script.example/>\';</script ><style>a[href="<a href=https://style.example/>"]{}</style>' +
      '<textarea><a href="https://textarea.example/">t</a></textarea><title><a href="https://title.example/">t</a></TITLE>' +
      '<xmp><a href="https://xmp.example/"></xmp><iframe><a href="https://iframe.example/"></iframe>' +
      '<noembed><a href="https://noembed.example/"></noembed><noframes><a href="https://noframes.example/"></noframes>' +
      '<img alt="<a href=https://alt.example/>"><!doctype html><!-- <a href="https://eof.example/">';
    expect(rewriteHtmlForTracking(dead, clicksOnly)).toBe(dead);
  });

  it('rewrites the links after a comment or a raw text element ends, and those in <noscript>, which a mail reader shows', () => {
    const html =
      '<!--><a href="https://a.example/">A</a><!---><a href="https://b.example/">B</a><!-- x --!><a href="https://c.example/">C</a>' +
      '<script>x = "</scripts>";</script\n><a href="https://d.example/">D</a><noscript><a href="https://e.example/">E</a></noscript>' +
      '<a href="https://f.example/" <b>F</a>';
    const out = rewriteHtmlForTracking(html, clicksOnly);
    expect(clickTargets(out)).toEqual(['https://a.example/', 'https://b.example/', 'https://c.example/', 'https://d.example/', 'https://e.example/', 'https://f.example/']);
  });

  it('rewrites what Outlook reads inside a conditional comment, but not a comment inside it, and what other readers read in a downlevel-revealed one', () => {
    const html =
      '<!--[if mso | IE]><!-- <a href="https://note.example/">n</a> --><v:roundrect href="https://button.example/"></v:roundrect><![endif]-->' +
      '<!--[if !mso]><!--><a href="https://revealed.example/">R</a><!--<![endif]-->' +
      '<!--[if !mso]><!-- --><a href="https://revealed2.example/">R2</a><!--<![endif]-->' +
      '<!--[if mso]><![endif]--><a href="https://after-empty.example/">E</a>';
    const out = rewriteHtmlForTracking(html, clicksOnly);
    expect(clickTargets(out)).toEqual(['https://button.example/', 'https://revealed.example/', 'https://revealed2.example/', 'https://after-empty.example/']);
    expect(out).toContain('<!-- <a href="https://note.example/">n</a> -->');
  });

  it('leaves a link that already is one of this email\'s click links as it is, so rewriting twice changes nothing', () => {
    const once = rewriteHtmlForTracking('<html><body><a href="https://a.example/">A</a></body></html>', base);
    expect(rewriteHtmlForTracking(once, base)).toBe(once);
    const lookalike = '<a href="https://t.example.com/t/c/not.signed">L</a><a href="https://other.example/t/c/abc.def">O</a>';
    expect(clickTargets(rewriteHtmlForTracking(lookalike, clicksOnly))).toEqual(['https://t.example.com/t/c/not.signed', 'https://other.example/t/c/abc.def']);
  });

  it('signs a click link copied from another email (another customer\'s, under another tracking host) for this one, straight to where it led', () => {
    const copied = rewriteHtmlForTracking('<a href="https://b.example/">B</a>', Object.assign({}, clicksOnly, { emailId: 'email_OLD', trackingBaseUrl: 'https://old-host.example' }));
    const out = rewriteHtmlForTracking(copied, clicksOnly);
    const claims = [...out.matchAll(/\/t\/c\/([\w.-]+)/g)].map((match) => tokens.verify(match[1]));
    expect(claims).toEqual([{ emailId: 'email_X', kind: 'click', url: 'https://b.example/', host: 't.example.com' }]);
    expect(out).toMatch(/^<a href="https:\/\/t\.example\.com\/t\/c\/[\w.-]+">B<\/a>$/);
  });

  it('adds the open pixel once: not again when the html already has this email\'s pixel', () => {
    const once = rewriteHtmlForTracking('<body>hi</body>', opensOnly);
    expect(rewriteHtmlForTracking(once, opensOnly)).toBe(once);
  });

  it('makes a pixel copied from another email this email\'s, in its place, rather than count this email\'s opens for the other', () => {
    const otherEmails = rewriteHtmlForTracking('<body>hi</body>', Object.assign({}, opensOnly, { emailId: 'email_OLD', trackingBaseUrl: 'https://old-host.example' }));
    const out = rewriteHtmlForTracking(otherEmails, opensOnly);
    const claims = [...out.matchAll(/\/t\/o\/([\w.-]+?)\.gif/g)].map((match) => tokens.verify(match[1]));
    expect(claims).toEqual([{ emailId: 'email_X', kind: 'open', host: 't.example.com' }]);
    expect(out.replace(/src="[^"]+"/, 'src=""')).toBe(otherEmails.replace(/src="[^"]+"/, 'src=""'));
    // One in an Outlook-only block is made this email's too, and the pixel every reader sees is still added.
    const inOutlook = `<body><!--[if mso]>${/<img [^>]+>/.exec(otherEmails)![0]}<![endif]-->hi</body>`;
    const outlookOut = rewriteHtmlForTracking(inOutlook, opensOnly);
    expect([...outlookOut.matchAll(/\/t\/o\/([\w.-]+?)\.gif/g)].map((match) => tokens.verify(match[1])?.emailId)).toEqual(['email_X', 'email_X']);
  });

  it('puts the pixel before the </body> a reader sees, not one in a comment, a script or an Outlook-only block', () => {
    const html = '<body><!-- </body> --><script>"</body>"</script><!--[if mso]></body><![endif]-->hi</body></html>';
    expect(rewriteHtmlForTracking(html, opensOnly)).toMatch(/<!\[endif\]-->hi<img [^>]+><\/body><\/html>$/);
  });

  it('puts the pixel where a reader sees it when the html ends inside a comment, a raw text element or an Outlook-only block', () => {
    expect(rewriteHtmlForTracking('hi<!-- footer', opensOnly)).toMatch(/^hi<!-- footer--><img [^>]+>$/);
    expect(rewriteHtmlForTracking('hi<style>p{}', opensOnly)).toMatch(/^hi<style>p\{\}<\/style><img [^>]+>$/);
    expect(rewriteHtmlForTracking('hi<!--[if mso]><b>x</b>', opensOnly)).toMatch(/^hi<!--\[if mso\]><b>x<\/b><!\[endif\]--><img [^>]+>$/);
  });

  it('signs only the link a browser follows: entities it decodes, and no link it would read differently', () => {
    const html =
      '<a href="https&#58;//colon.example/">A</a><a href="https&colon;//named.example/a&sol;b&period;c">B</a>' +
      '<a href="https://legacy.example/?q=a&amp">C</a><a href="https://legacy2.example/?x=1&copy=2&AMP;y=3">D</a>' +
      '<a href="https://nbsp.example/a&nbsp;b">E</a>';
    const out = rewriteHtmlForTracking(html, clicksOnly);
    expect(clickTargets(out)).toEqual([
      'https://colon.example/',
      'https://named.example/a/b.c',
      'https://legacy.example/?q=a&',
      'https://legacy2.example/?x=1&copy=2&y=3',
      'https://nbsp.example/a\u00a0b',
    ]);
    // A named reference this rewriter does not know may stand for another character, and a URL no browser can parse leads nowhere: such links are left as they are.
    const unknown = '<a href="https://x.example/&hellip;">U</a><a href="https://y.example/?a=1&copy-2">V</a><a href="https://exa mple.example/">W</a>';
    const kept = rewriteHtmlForTracking(unknown, clicksOnly);
    expect(clickTargets(kept)).toEqual(['https://y.example/?a=1\u00a9-2']);
    expect(kept).toContain('<a href="https://x.example/&hellip;">U</a>');
    expect(kept).toContain('<a href="https://exa mple.example/">W</a>');
  });

  it('leaves links that are no http(s) URL alone: javascript, data, mailto, tel, fragments, templates, no href at all', () => {
    const html =
      '<a href=" javascript:alert(1)">j</a><a href="data:text/html,x">d</a><a href="MAILTO:x@y.z">m</a><a href="tel:+1">t</a>' +
      '<a href="#top">f</a><a href="{{url}}">v</a><a name="x">n</a><a href>e</a><base href="https://base.example/"><a href="page">r</a>';
    expect(rewriteHtmlForTracking(html, clicksOnly)).toBe(html);
  });

  it('keeps the html around a rewritten link as it was: other attributes, quotes, self-closing slashes, a tag name in capitals', () => {
    const html = '<a href=\'https://x.example/\'title="a > b"/><V:RoundRect HREF = "https://v.example/" fillcolor="#fff"><a foo"bar href="https://q.example/">q</a>';
    expect(tracked(rewriteHtmlForTracking(html, clicksOnly))).toBe(
      '<a href=\'TRACKED\'title="a > b"/><V:RoundRect HREF="TRACKED" fillcolor="#fff"><a foo"bar href="TRACKED">q</a>',
    );
  });

  it('rewrites a link written after </body> too, and the pixel still goes before it', () => {
    const out = rewriteHtmlForTracking('<body><a href="https://in.example/">I</a></body><a href="https://after.example/">A</a>', base);
    expect(clickTargets(out)).toEqual(['https://in.example/', 'https://after.example/']);
    expect(tracked(out)).toMatch(/^<body><a href="TRACKED">I<\/a><img [^>]+><\/body><a href="TRACKED">A<\/a>$/);
  });

  it('puts the pixel before a tag the html ends inside, which the parser drops, rather than into it', () => {
    expect(rewriteHtmlForTracking('hi<a href="https://x.example/', opensOnly)).toMatch(/^hi<img [^>]+><a href="https:\/\/x\.example\/$/);
  });

  it('is idempotent and changes nothing but tracked href values and the one pixel, whatever html it is given', () => {
    const fragments = fc.constantFrom(
      '<a href="https://a.example/">', '<a href=https://b.example/?q=1&amp;r=2>', "<V:RoundRect HREF='https://v.example/'>", '</a>', '<body>', '</body>',
      '<!--', '-->', '--!>', '<!-->', '<!--[if mso]>', '<![endif]-->', '<!--[if !mso]><!-->', '<!--<![endif]-->', '<script>', '</script>',
      '<title>', '</title>', '<img alt="', '"', "'", '>', '<', '=', ' ', 'text', '&copy', '&hellip;', '<!doctype html>', '<area href="https://x.example/unsubscribe">',
      '<plaintext>', '</', '<textarea>', '</textarea>', '<a href="https://x.example/    y">',
    );
    // What may close what the html ends inside: a comment, raw text, a bogus comment (`<!x`, `</=`), an Outlook-only block.
    const closers = ['', '-->', '</script>', '</title>', '</textarea>', '>'].flatMap((closer) => [closer, `${closer}<![endif]-->`]);
    fc.assert(
      fc.property(fc.array(fragments, { maxLength: 40 }), (parts) => {
        const html = parts.join('');
        const once = rewriteHtmlForTracking(html, base);
        expect(rewriteHtmlForTracking(once, base)).toBe(once);
        // Each tracked href, put back as the fragment wrote it, gives back the html: nothing else was touched.
        const written: Record<string, string> = {
          'https://a.example/': '="https://a.example/"',
          'https://b.example/?q=1&r=2': '=https://b.example/?q=1&amp;r=2',
          'https://v.example/': "='https://v.example/'",
          'https://x.example/    y': '="https://x.example/    y"',
        };
        const clicksOnlyOut = rewriteHtmlForTracking(html, clicksOnly);
        expect(clicksOnlyOut.replace(/=(["'])https:\/\/t\.example\.com\/t\/c\/([\w.-]+)\1/g, (_, quote, token) => written[tokens.verify(token)!.url!])).toBe(html);
        expect(once.match(/\/t\/o\//g)).toHaveLength(1);
        // The pixel alone, put in where the html ends or before a tag, text or </body> it ends at, with no more than
        // what closes the comment, raw text or Outlook-only block it is in, and it is markup a reader sees.
        const pixelOnly = rewriteHtmlForTracking(html, opensOnly);
        const pixel = /(<img src="https:\/\/t\.example\.com\/t\/o\/[\w.-]+" [^>]*\/>)/.exec(pixelOnly)![1];
        const [before, after] = pixelOnly.split(pixel);
        const closer = closers.find((candidate) => before.endsWith(candidate) && before.slice(0, before.length - candidate.length) + after === html);
        expect(closer).toBeDefined();
        // After an Outlook-only block it closed, the scanner (reading that block as Outlook does) is no judge of what others see.
        if (!closer!.endsWith('<![endif]-->')) {
          expect(scanMarkup(pixelOnly).tags.some((tag) => tag.name === 'img' && !tag.outlookOnly && pixelOnly.startsWith(pixel, tag.start))).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('puts the pixel before a <plaintext>, after which all is text a reader would see it written in', () => {
    expect(rewriteHtmlForTracking('<p>hi<plaintext>raw <b>', opensOnly)).toMatch(/^<p>hi<img [^>]+><plaintext>raw <b>$/);
  });

  it('puts the pixel before a </ the html ends with, which a reader sees as text and a > after it would turn into nothing', () => {
    expect(rewriteHtmlForTracking('<p>1 </', opensOnly)).toMatch(/^<p>1 <img [^>]+><\/$/);
  });

  it('reads a link with a long run of spaces inside it in linear time', () => {
    const html = `<a href="https://x.example/${' '.repeat(100_000)}y">x</a><img src="https://y.example/${'\t'.repeat(100_000)}z">`;
    const started = Date.now();
    expect(rewriteHtmlForTracking(html, clicksOnly)).toBe(html);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('signs a numeric reference to 0x80–0x9F as the character a browser reads it as (Windows-1252), not a C1 control', () => {
    const out = rewriteHtmlForTracking('<a href="https://x.example/a&#150;b&#x80;c&#129;d">x</a>', clicksOnly);
    expect(clickTargets(out)).toEqual(['https://x.example/a\u2013b\u20acc\u0081d']);
  });

  it('changes nothing when both switches are off', () => {
    const html = '<a href="https://a.example">A</a>';
    expect(rewriteHtmlForTracking(html, { ...base, opens: false, clicks: false })).toBe(html);
  });
});
