import type { FastifyInstance } from 'fastify';
import { SECURITY_HEADERS } from '@mailroom/runtime';

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
 * Adds the default security headers (SECURITY_HEADERS, whose comment says why each) to every answer the gateway
 * sends, errors and 404s included, except where the route set one itself (the docs page's policy, its assets'
 * caching, the tracking answers'). In onSend, the last moment before the headers go out, so a route's own choice is
 * known. Not no-referrer on a redirect (a tracked link's click), where a policy would carry over to the next
 * request: the destination sees the page the link was on, as without the redirect (the sender's own site analytics
 * count on it), and the tracking URL is never the referrer anyway.
 */
export function addSecurityHeaders(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    const redirect = reply.statusCode >= 300 && reply.statusCode < 400;
    for (const [name, value] of SECURITY_HEADERS) {
      if (!reply.hasHeader(name) && !(redirect && name === 'referrer-policy')) reply.header(name, value);
    }
    done(null, payload);
  });
}
