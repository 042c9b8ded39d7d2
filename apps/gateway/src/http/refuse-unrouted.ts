import { DomainError, ErrorCode } from '@mailroom/errors';

interface RoutedRequest {
  routeOptions: { url?: string };
  params: unknown;
}

/**
 * A path that names nothing is 404 whoever asks and whatever the body: no
 * route at all (Fastify's not-found handler still reads the body, and
 * answered 415, 413 or 400 for it), or a route whose id segment is empty
 * (`/v1/emails/`, `/v1/emails//cancel`), which no resource can have. Settled
 * before the key and the body, as the README's order of checks says.
 */
export function assertRouted(request: RoutedRequest): void {
  if (request.routeOptions.url === undefined) throw new DomainError(ErrorCode.NotFound, 'No route matches this method and path.');
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const name in params) {
    if (params[name] === '') throw new DomainError(ErrorCode.NotFound, `No route matches this method and path: its ${name} is empty.`);
  }
}
