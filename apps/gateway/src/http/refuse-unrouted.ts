import { DomainError, ErrorCode } from '@mailroom/errors';
import type { AllowedMethods } from './allowed-methods';

interface RoutedRequest {
  method: string;
  url: string;
  routeOptions: { url?: string };
  params: unknown;
}

interface ReplyLike {
  header(name: string, value: string): unknown;
}

const pathOf = (url: string) => url.split('?', 1)[0];

/**
 * A path that names nothing is 404 whoever asks and whatever the body: no
 * route at all (Fastify's not-found handler still reads the body, and
 * answered 415, 413 or 400 for it), or a route whose id segment is empty
 * (`/v1/emails/`, `/v1/emails//cancel`), which no resource can have. A path
 * served under other methods only is 405 with `Allow`. Both are settled
 * before the key and the body, as the README's order of checks says: the
 * routes are public knowledge (GET /openapi.json).
 */
export function assertRouted(request: RoutedRequest, reply: ReplyLike, allowed: AllowedMethods): void {
  if (request.routeOptions.url === undefined) {
    const refusal = unroutedRefusal(request.method, request.url, allowed);
    if (refusal.allow !== undefined) reply.header('allow', refusal.allow);
    throw refusal.error;
  }
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const name in params) {
    if (params[name] === '') throw new DomainError(ErrorCode.NotFound, `No route matches this method and path: its ${name} is empty.`);
  }
}

/** The answer to a request no route takes: 404, or 405 with the methods its path is served with (for `Allow`). */
export function unroutedRefusal(method: string, url: string, allowed: AllowedMethods): { error: DomainError; allow?: string } {
  const methods = allowed.at(pathOf(url));
  if (!methods.length) return { error: new DomainError(ErrorCode.NotFound, 'No route matches this method and path.') };
  const allow = methods.join(', ');
  return { error: new DomainError(ErrorCode.MethodNotAllowed, `${method} is not allowed here; this path takes ${allow}.`), allow };
}
