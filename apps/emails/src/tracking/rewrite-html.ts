import { canonicalTrackingHost, TRACKING_TOKEN_MAX_LENGTH, TrackingTokens } from '@mailroom/auth';
import { LINK_TAG, LinkHref, linkHref } from './link-href';

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

/** Links that must keep working without us: unsubscribe links (RFC 8058 senders rely on them) and opted-out ones. */
function keepAsIs(href: LinkHref, url: string, unsubscribeUrl?: string): boolean {
  return href.attributeNames.includes('data-mailroom-untracked') || /unsubscribe/i.test(url) || (!!unsubscribeUrl && url === unsubscribeUrl);
}

/** A browser strips leading and trailing C0 controls and spaces from a link (WHATWG URL parsing). */
const stripUrlPadding = (url: string) => url.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');

const BODY_END = /<\/body\s*>/i;

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
 * pixel, both under the domain's tracking host with signed tokens, each
 * bound to that host (the gateway honours it on no other).
 */
export function rewriteHtmlForTracking(html: string, options: TrackingOptions): string {
  const base = options.trackingBaseUrl.replace(/\/+$/, '');
  const host = canonicalTrackingHost(new URL(base).host);
  // Never an unbound token: the gateway would honour that one on any customer's tracking domain.
  if (!host) throw new Error(`the tracking base URL ${base} names no host`);
  let out = html;
  if (options.clicks) {
    out = out.replace(LINK_TAG, (tag) => {
      const href = linkHref(tag);
      const url = href && stripUrlPadding(decodeEntities(href.value));
      if (!href || !url || !/^https?:\/\//i.test(url) || keepAsIs(href, url, options.unsubscribeUrl)) return tag;
      const token = options.tokens.sign({ emailId: options.emailId, kind: 'click', url, host });
      if (token.length > TRACKING_TOKEN_MAX_LENGTH) return tag;
      // An unquoted value gets quotes: nothing in the tracked URL needs them, but nothing is lost by them either.
      const quote = href.quote || '"';
      // The name keeps its case as written (`HREF`), so only the value changes.
      return `${tag.slice(0, href.start + 'href'.length)}=${quote}${base}/t/c/${token}${quote}${tag.slice(href.end)}`;
    });
  }
  if (options.opens) {
    const token = options.tokens.sign({ emailId: options.emailId, kind: 'open', host });
    const pixel = `<img src="${base}/t/o/${token}.gif" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px" />`;
    // A replacer function, not a string: the tracking URL's path may hold `$&` or `$'`, which a replacement string expands.
    // `</body >` closes the body too (HTML allows white space before the `>`).
    out = BODY_END.test(out) ? out.replace(BODY_END, (closing) => `${pixel}${closing}`) : `${out}${pixel}`;
  }
  return out;
}
