/**
 * What every answer of ours says (the API port's, unless its route chose otherwise, and the operations port's), as
 * OWASP's REST Security Cheat Sheet asks of an API:
 * - nosniff: a browser must not run an answer as a script or page its content type does not say it is (a JSON
 *   error echoing the request, say);
 * - DENY and frame-ancestors 'none': no page may frame ours (clickjacking the docs page);
 * - no-store: answers carry API keys (at creation), webhook secrets, addresses and message bodies, which no
 *   browser or shared proxy cache may keep (the metrics are tenant-free, but an inventory of the system);
 * - default-src 'none' for answers that are no page: if one is ever rendered, it loads and runs nothing;
 * - no-referrer: nothing we serve links onwards with its URL (ids, cursors) in a Referer.
 * HSTS is left to the TLS terminator in front (README, Deploying): the apps speak plain HTTP and do not know which
 * host names are served over TLS.
 */
export const SECURITY_HEADERS: ReadonlyArray<[string, string]> = [
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
  ['cache-control', 'no-store'],
  ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
  ['referrer-policy', 'no-referrer'],
];

/**
 * The same headers as raw lines, for the answers written straight to the socket (a request Node's parser could
 * not read never reaches a route): a 400 echoing what it could not parse is as much to be neither sniffed nor
 * cached as any other answer.
 */
export const SECURITY_HEADER_LINES = SECURITY_HEADERS.map(([name, value]) => `${name}: ${value}\r\n`).join('');
