import type { FastifyInstance } from 'fastify';

/**
 * What every answer says, as OWASP's REST Security Cheat Sheet asks of an API, unless its route chose otherwise:
 * - nosniff: a browser must not run an answer as a script or page its content type does not say it is (a JSON
 *   error echoing the request, say);
 * - DENY and frame-ancestors 'none': no page may frame the gateway's (clickjacking the docs page);
 * - no-store: answers carry API keys (at creation), webhook secrets, addresses and message bodies, which no
 *   browser or shared proxy cache may keep;
 * - default-src 'none' for answers that are no page: if one is ever rendered, it loads and runs nothing;
 * - no-referrer: nothing the gateway serves links onwards with its URL (ids, cursors) in a Referer. Not on a
 *   redirect (a tracked link's click), where a policy would carry over to the next request: the destination sees
 *   the page the link was on, as without the redirect (the sender's own site analytics count on it), and the
 *   tracking URL is never the referrer anyway.
 * HSTS is left to the TLS terminator in front (README, Deploying): the gateway speaks plain HTTP and does not
 * know which host names are served over TLS.
 */
const DEFAULT_HEADERS: ReadonlyArray<[string, string]> = [
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
  ['cache-control', 'no-store'],
  ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
  ['referrer-policy', 'no-referrer'],
];

/**
 * The same headers as raw lines, for the answers written straight to the socket (a request Node's parser could
 * not read never reaches Fastify's hooks): a 400 echoing what it could not parse is as much to be neither sniffed
 * nor cached as any other answer.
 */
export const SECURITY_HEADER_LINES = DEFAULT_HEADERS.map(([name, value]) => `${name}: ${value}\r\n`).join('');

/**
 * The docs page's policy: swagger-ui runs from the gateway's own files (no CDN, no inline script), fetches the
 * OpenAPI document and the requests "Try it out" sends from the same origin, and styles elements itself (its
 * inline style attributes, and the data: images of its icons).
 */
export const DOCS_PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Adds the default security headers to every answer the gateway sends, errors and 404s included, except where the
 * route set one itself (the docs page's policy, its assets' caching, the tracking answers'). In onSend, the last
 * moment before the headers go out, so a route's own choice is known.
 */
export function addSecurityHeaders(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    const redirect = reply.statusCode >= 300 && reply.statusCode < 400;
    for (const [name, value] of DEFAULT_HEADERS) {
      if (!reply.hasHeader(name) && !(redirect && name === 'referrer-policy')) reply.header(name, value);
    }
    done(null, payload);
  });
}
