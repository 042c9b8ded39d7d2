import { isIP } from 'node:net';
import { quotedForMessage } from '@mailroom/errors';
import { refusedAddressReason } from '@mailroom/runtime';

export interface UrlPolicy {
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
}

/**
 * The host exactly as written, before the URL parser rewrites `0x7f.1` into `127.0.0.1`. A backslash ends it as a
 * slash does: the parser reads one as a slash in http(s) URLs.
 */
function hostAsWritten(raw: string): string {
  const match = /^[a-z][a-z0-9+.-]*:[/\\]{2}(?:[^@/\\?#]*@)?(\[[^\]]*\]|[^:/\\?#]*)/i.exec(raw.trim());
  return match ? match[1] : '';
}

/**
 * Why the scheme of a webhook URL is refused, or null: https always, http only with WEBHOOK_ALLOW_HTTP. Checked at
 * creation and again at every attempt (WebhookSender), since a URL stored while http was allowed stays stored.
 */
export function schemeProblem(url: URL, policy: Pick<UrlPolicy, 'allowHttp'>): string | null {
  if (url.protocol === 'https:' || (url.protocol === 'http:' && policy.allowHttp)) return null;
  return policy.allowHttp ? 'must be an http or https URL' : 'must be an https URL';
}

/** Raised when an attempt's stored URL has a scheme the policy no longer allows; the webhook's owner reads it in the attempt log. */
export class RefusedSchemeError extends Error {
  readonly code = 'EREFUSEDSCHEME';
  constructor(problem: string) {
    super(`not sent: the URL ${problem}`);
    this.name = 'RefusedSchemeError';
  }
}

/**
 * Throws when a stored URL's scheme is not allowed now: an http URL stored while WEBHOOK_ALLOW_HTTP was true (a
 * development setup taken to production) would otherwise go on carrying signed events, recipients and all, in clear.
 */
export function assertSchemeAllowed(url: URL, policy: Pick<UrlPolicy, 'allowHttp'>): void {
  const problem = schemeProblem(url, policy);
  if (problem) throw new RefusedSchemeError(problem);
}

/**
 * Why a webhook URL is refused at creation, or null. Names are accepted here
 * (they are checked again after resolution, at every connection); a literal
 * address that could never be delivered to is refused at once.
 */
export function webhookUrlProblem(raw: string, policy: UrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL such as https://example.com/webhooks';
  }
  const scheme = schemeProblem(url, policy);
  if (scheme) return scheme;
  if (url.username || url.password) return 'must not contain credentials; put a token in the path or query instead';
  // url.hash is empty for a bare trailing '#', which the parser still keeps in href (and we store href).
  if (url.href.includes('#')) {
    return 'must not have a fragment (#…): it is never sent to the receiver; put a token in the path or query instead';
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) return 'must have a host';
  if (url.port === '0') return 'must not use port 0';
  if (policy.allowPrivateNetworks) return null;
  // The parser reads an IPv4 address from many spellings (2130706433, 0x7f.1, a trailing dot, percent-encoded or
  // full-width digits) and answers it in dotted decimal: any other spelling is one made to slip past a filter.
  const written = hostAsWritten(raw);
  if (isIP(host) === 4 && written !== host) {
    return `must not write an IP address in decimal, octal or hex form (${quotedForMessage(written || host)})`;
  }
  const reason = isIP(host) ? refusedAddressReason(host) : null;
  if (reason) return `must not point at ${reason} (${host})`;
  return null;
}
