/** Characters that end or change a URL's authority: a Host holding one names no single host. */
const NOT_IN_A_HOST = /[\s/\\?#@]/;

/**
 * The form in which a tracking token names the host it was sent under, and in
 * which the gateway reads the host a request came to, so the two compare as
 * strings: the hostname as the WHATWG URL parser writes it (lower-case,
 * punycode, an IPv6 address compressed in brackets), without a port and
 * without a final dot. The port is left out because it is no tenant's: a
 * proxy on 443 in front of a gateway on 3000 may pass either in its Host.
 * Null for anything that is no host.
 */
export function canonicalTrackingHost(authority: string): string | null {
  if (!authority || NOT_IN_A_HOST.test(authority)) return null;
  try {
    const hostname = new URL(`http://${authority}`).hostname.replace(/\.$/, '');
    return hostname || null;
  } catch {
    return null;
  }
}
