import { DomainError, ErrorCode, quotedForMessage } from '@mailroom/errors';

interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
}

const UTF8_NAMES = new Set(['utf-8', 'utf8']);

/**
 * The API speaks JSON only. A request that sends a body of another media type
 * is refused with 415 before any parser runs, whatever the method and whether
 * or not the route reads a body: a DELETE or GET with a text/plain body was
 * answered as if it had none, so a client never learnt that what it sent was
 * not read. A request without a body (verify, cancel) needs no Content-Type.
 * So is a compressed body (a Content-Encoding, or a transfer coding besides chunked): nothing here inflates it,
 * and the parser would read gzip's bytes as broken JSON (400), which says
 * nothing of the cause. A charset other than UTF-8 is refused too: the body
 * is read as UTF-8 whatever the header says (JSON is UTF-8, RFC 8259 §8.1),
 * so a Latin-1 body labelled as such was read as something it is not.
 */
export function assertJsonBody(request: RequestLike): void {
  const length = request.headers['content-length'];
  const hasBody = (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return;
  // Node's parser takes `gzip, chunked` and hands on the coded bytes; only chunked is decoded (RFC 9112 §6.1).
  const transferCoding = request.headers['transfer-encoding'];
  if (transferCoding !== undefined && String(transferCoding).trim().toLowerCase() !== 'chunked') {
    throw new DomainError(ErrorCode.UnsupportedMediaType, `Transfer-Encoding ${quotedForMessage(String(transferCoding))} is not supported; send the body chunked or with a Content-Length.`);
  }
  const encoding = String(request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') {
    throw new DomainError(ErrorCode.UnsupportedMediaType, `Content-Encoding ${quotedForMessage(encoding)} is not supported; send the body uncompressed.`);
  }
  const [mediaType, ...parameters] = String(request.headers['content-type'] ?? '').split(';');
  const type = mediaType.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new DomainError(ErrorCode.UnsupportedMediaType, `Content-Type must be application/json, got ${quotedForMessage(type || 'none')}.`);
  }
  const charset = charsetOf(parameters);
  if (charset !== undefined && !UTF8_NAMES.has(charset)) {
    throw new DomainError(ErrorCode.UnsupportedMediaType, `Content-Type charset must be utf-8, got ${quotedForMessage(charset)}; JSON is UTF-8 (RFC 8259 §8.1).`);
  }
}

/** The charset parameter, lower-case and unquoted (`charset="UTF-8"`), if there is one. */
function charsetOf(parameters: string[]): string | undefined {
  for (const parameter of parameters) {
    const [name, value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset') return value.trim().replace(/^"(.*)"$/, '$1').toLowerCase();
  }
  return undefined;
}
