import { DomainError, ErrorCode } from '@mailroom/errors';

/**
 * An id or address in the path holding NUL (%00) names nothing: no resource
 * can have one, and Postgres cannot even compare text with it. It is a 404
 * here rather than a 500 from the service that would look it up. (NUL in a
 * query string or body is a 422 naming the field, from validateDto.)
 */
export function assertNoNulInPath(request: { url: string }): void {
  const query = request.url.indexOf('?');
  const path = query === -1 ? request.url : request.url.slice(0, query);
  if (/%00/.test(path)) throw new DomainError(ErrorCode.NotFound, 'No route matches this path: it contains the NUL character (%00).');
}
