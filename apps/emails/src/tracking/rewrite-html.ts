import { TRACKING_TOKEN_MAX_LENGTH, TrackingTokens } from '@mailroom/auth';

export interface TrackingOptions {
  emailId: string;
  /** e.g. https://track.example.com — the domain's tracking host. */
  trackingBaseUrl: string;
  opens: boolean;
  clicks: boolean;
  tokens: TrackingTokens;
  /** The List-Unsubscribe URL, if any: never rewritten. */
  unsubscribeUrl?: string;
}

// `\s` before href, not `\b`: `\b` also matches inside `data-href=`, which rewrote that attribute and left the real link untracked.
const ANCHOR_HREF = /(<a\b[^>]*?\shref\s*=\s*)(["'])(https?:\/\/[^"']+)\2([^>]*>)/gi;

/** Links that must keep working without us: unsubscribe links (RFC 8058 senders rely on them) and opted-out ones. */
function keepAsIs(tag: string, url: string, unsubscribeUrl?: string): boolean {
  return /data-mailroom-untracked/i.test(tag) || /unsubscribe/i.test(url) || (!!unsubscribeUrl && url === unsubscribeUrl);
}

const NAMED_REFERENCES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' };
const CHARACTER_REFERENCE = /&(?:#(\d+)|#x([0-9a-f]+)|(amp|quot|apos|lt|gt));?/gi;

/**
 * The link a browser follows: the attribute value with its character
 * references decoded. Numeric ones (`&#38;`, `&#x26;`, which some HTML
 * generators write for every `&`) count even without their `;`, as in the
 * HTML parser; a named one only with it. Signed undecoded, `?a=1&#38;b=2`
 * redirected to a URL whose query ended at `&` and whose fragment was `38;b=2`.
 */
function decodeEntities(url: string): string {
  return url.replace(CHARACTER_REFERENCE, (reference, decimal?: string, hex?: string, name?: string) => {
    if (name) return reference.endsWith(';') ? NAMED_REFERENCES[name.toLowerCase()] : reference;
    const codePoint = decimal !== undefined ? Number(decimal) : parseInt(hex!, 16);
    // What the HTML parser puts in place of NUL, a surrogate or a number past Unicode.
    return codePoint === 0 || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff) ? '\uFFFD' : String.fromCodePoint(codePoint);
  });
}

/**
 * Rewrites http(s) links to the click redirector and appends the 1×1 open
 * pixel, both under the domain's tracking host with signed tokens.
 */
export function rewriteHtmlForTracking(html: string, options: TrackingOptions): string {
  const base = options.trackingBaseUrl.replace(/\/+$/, '');
  let out = html;
  if (options.clicks) {
    out = out.replace(ANCHOR_HREF, (whole, head: string, quote: string, url: string, tail: string) => {
      if (keepAsIs(whole, decodeEntities(url), options.unsubscribeUrl)) return whole;
      const token = options.tokens.sign({ emailId: options.emailId, kind: 'click', url: decodeEntities(url) });
      if (token.length > TRACKING_TOKEN_MAX_LENGTH) return whole;
      return `${head}${quote}${base}/t/c/${token}${quote}${tail}`;
    });
  }
  if (options.opens) {
    const token = options.tokens.sign({ emailId: options.emailId, kind: 'open' });
    const pixel = `<img src="${base}/t/o/${token}.gif" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px" />`;
    out = /<\/body>/i.test(out) ? out.replace(/<\/body>/i, `${pixel}</body>`) : `${out}${pixel}`;
  }
  return out;
}
