import { DomainError, ErrorCode } from '@mailroom/errors';

interface RequestLike {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The API speaks JSON only. A request that sends a body of another media type
 * is refused with 415 before any parser runs; a bodiless POST (verify, cancel)
 * needs no Content-Type. So is a compressed body: nothing here inflates it,
 * and the parser would read gzip's bytes as broken JSON (400), which says
 * nothing of the cause.
 */
export function assertJsonBody(request: RequestLike): void {
  if (!WITH_BODY.has(request.method)) return;
  const length = request.headers['content-length'];
  const hasBody = (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return;
  const encoding = String(request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') {
    throw new DomainError(ErrorCode.UnsupportedMediaType, `Content-Encoding '${encoding}' is not supported; send the body uncompressed.`);
  }
  const type = String(request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    throw new DomainError(ErrorCode.UnsupportedMediaType, `Content-Type must be application/json, got '${type || 'none'}'.`);
  }
}
