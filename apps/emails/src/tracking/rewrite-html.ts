import { canonicalTrackingHost, TRACKING_TOKEN_MAX_LENGTH, TrackingTokens } from '@mailroom/auth';
import { decodeAttributeValue } from './character-references';
import { MarkupTag, scanMarkup, TagAttribute } from './html-markup';
import { LinkHref, linkHref } from './link-href';
import { clickTrackingUrl, openPixelUrl, ownTrackingClaim } from './own-tracking-url';

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

/**
 * A browser strips leading and trailing C0 controls and spaces from a link
 * (WHATWG URL parsing). Found by scanning from each end: a `[…]+$` pattern
 * tries again from every character of a run that does not end the string, so
 * a link holding a long run of spaces took quadratic time.
 */
function stripUrlPadding(url: string): string {
  const isPadding = (at: number) => url.charCodeAt(at) <= 0x20;
  let start = 0;
  let end = url.length;
  while (start < end && isPadding(start)) start++;
  while (end > start && isPadding(end - 1)) end--;
  return url.slice(start, end);
}

/** The URL a browser follows from an attribute value; null when we cannot tell it for sure. */
function followedUrl(value: string): string | null {
  const decoded = decodeAttributeValue(value);
  return decoded === null ? null : stripUrlPadding(decoded);
}

/**
 * The URL a link tag's href is rewritten to, or null to leave it: only an
 * http(s) URL a browser can parse (signing one it cannot would turn a dead
 * link into our 404), not one of this email's tracking links already (html
 * passed through here twice), not one that must keep working without us
 * (as written, or where a copied click link led), not one whose token the
 * gateway would not route.
 */
function clickUrl(href: LinkHref, base: string, host: string, options: TrackingOptions): string | null {
  const written = followedUrl(href.attribute.value);
  if (!written || !/^https?:\/\//i.test(written) || !URL.canParse(written)) return null;
  const claim = ownTrackingClaim(written, options.tokens);
  if (claim?.kind === 'click' && claim.emailId === options.emailId) return null;
  // A click link copied from another email (a quoted reply, a template pasted from received mail, another customer's
  // link) is signed again for this one, to where it led: a click in this email is this email's, not the other's (whose
  // recipient never made it, and whose sender may be someone else), and it must not depend on the other's tracking host.
  const url = claim?.kind === 'click' && claim.url ? claim.url : written;
  if (keepAsIs(href, written, options.unsubscribeUrl) || keepAsIs(href, url, options.unsubscribeUrl)) return null;
  const token = options.tokens.sign({ emailId: options.emailId, kind: 'click', url, host });
  return token.length > TRACKING_TOKEN_MAX_LENGTH ? null : clickTrackingUrl(base, token);
}

interface OpenPixel {
  /** Inside an Outlook-only block: not the one every reader sees. */
  outlookOnly: boolean;
  src: TagAttribute;
  /** The email its token counts opens for. */
  emailId: string;
}

/** The open pixels already in the html: this email's (it went through here before), or another's (copied from tracked mail). */
function openPixelsIn(tags: MarkupTag[], tokens: TrackingTokens): OpenPixel[] {
  return tags.flatMap((tag) => {
    const src = tag.kind === 'start' && tag.name === 'img' ? tag.attributes.find((attribute) => attribute.name === 'src') : undefined;
    const claim = src?.value === undefined ? null : ownTrackingClaim(followedUrl(src.value) ?? '', tokens);
    return src && claim?.kind === 'open' ? [{ outlookOnly: tag.outlookOnly, src, emailId: claim.emailId }] : [];
  });
}

/** What replaces html.slice(start, end). */
interface Edit {
  start: number;
  end: number;
  text: string;
}

/** The edit that gives an attribute another value: its name keeps its case as written (`HREF`); an unquoted value gets quotes, which lose nothing. */
function newValue(attribute: TagAttribute, value: string): Edit {
  const quote = attribute.quote || '"';
  return { start: attribute.start + attribute.name.length, end: attribute.end, text: `=${quote}${value}${quote}` };
}

/**
 * Rewrites http(s) links to the click redirector and appends the 1×1 open
 * pixel (unless the html shows one already), both under the domain's
 * tracking host with signed tokens, each bound to that host (the gateway
 * honours it on no other). Only markup a
 * reader's parser sees is touched (see scanMarkup): a link in a comment or in
 * a script is text, and stays as it is.
 */
export function rewriteHtmlForTracking(html: string, options: TrackingOptions): string {
  const base = options.trackingBaseUrl.replace(/\/+$/, '');
  const host = canonicalTrackingHost(new URL(base).host);
  // Never an unbound token: the gateway would honour that one on any customer's tracking domain.
  if (!host) throw new Error(`the tracking base URL ${base} names no host`);
  const { tags, endAt, unclosed } = scanMarkup(html);
  const edits: Edit[] = [];
  if (options.clicks) {
    for (const tag of tags) {
      const href = linkHref(tag);
      const url = href && clickUrl(href, base, host, options);
      if (href && url) edits.push(newValue(href.attribute, url));
    }
  }
  if (options.opens) {
    const token = options.tokens.sign({ emailId: options.emailId, kind: 'open', host });
    const pixelUrl = openPixelUrl(base, token);
    const pixels = openPixelsIn(tags, options.tokens);
    // Another email's pixel (copied from tracked mail) would count this email's opens for that one, perhaps another
    // customer's: it becomes this email's, where it stands.
    for (const pixel of pixels) if (pixel.emailId !== options.emailId) edits.push(newValue(pixel.src, pixelUrl));
    if (!pixels.some((pixel) => !pixel.outlookOnly)) {
      const img = `<img src="${pixelUrl}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px" />`;
      // Before the first </body> every reader sees (`</body >` too); else after whatever the html ends inside.
      const bodyEnd = tags.find((tag) => tag.kind === 'end' && tag.name === 'body' && !tag.outlookOnly);
      const at = bodyEnd ? bodyEnd.start : endAt;
      edits.push({ start: at, end: at, text: bodyEnd ? img : `${unclosed}${img}` });
    }
  }
  edits.sort((a, b) => a.start - b.start);
  const pieces: string[] = [];
  let copied = 0;
  for (const edit of edits) {
    pieces.push(html.slice(copied, edit.start), edit.text);
    copied = edit.end;
  }
  pieces.push(html.slice(copied));
  return pieces.join('');
}
