import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { wasAnsweredBeforeBody } from './answered-before-body';
import { SECURITY_HEADER_LINES } from './security-headers';

/** What Node's HTTP parser reports (llhttp's HPE_* codes, or Node's own), with the bytes it was reading. */
type ParserError = Error & { code?: string; rawPacket?: unknown };

/**
 * Node counts the request line and the headers against one limit
 * (maxHeaderSize) and reports both as HPE_HEADER_OVERFLOW. When the request
 * line alone reaches the limit, it is the URL that is too long: 414 (RFC 9110
 * §15.5.15) tells the client to shorten it; otherwise it is the headers:
 * 431 (RFC 6585 §5). Read from the bytes the parser was given, which start
 * with the request line unless the client sent it in pieces; then it stays
 * the 431 of any header overflow.
 */
function requestLineOverflowed(error: ParserError): boolean {
  if (!Buffer.isBuffer(error.rawPacket) || !/^[A-Z]+ /.test(error.rawPacket.subarray(0, 16).toString('latin1'))) return false;
  const lineEnd = error.rawPacket.indexOf('\n');
  return (lineEnd === -1 ? error.rawPacket.length : lineEnd) >= maxHeaderSize;
}

function describe(error: ParserError): DomainError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      if (requestLineOverflowed(error)) return new DomainError(ErrorCode.UriTooLong, `The URL is longer than this server reads (${maxHeaderSize} bytes with the headers).`);
      return new DomainError(ErrorCode.HeadersTooLarge, `The request headers are larger than this server reads (${maxHeaderSize} bytes with the request line).`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // 408 (RFC 9110 §15.5.9), not 400: nothing was wrong with what arrived, and the whole request sent again may succeed.
      return new DomainError(ErrorCode.RequestTimeout, 'The request did not arrive completely in time; send it again.');
    default:
      return new DomainError(ErrorCode.InvalidJson, `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}).`);
  }
}

/**
 * How long a connection answered this way is read from (and what arrives
 * thrown away) before it is closed for good.
 */
const LINGER_MS = 2_000;

/** Connections already answered: the parser reports each further chunk of them as another error. */
const answered = new WeakSet<Socket>();

/**
 * Requests Node's HTTP parser cannot read (a control character in a header,
 * a Content-Length that is no number, broken chunked encoding, a URL or
 * headers over the size limit) never reach a route or Nest's filter: Fastify answered them
 * itself, in a shape of its own. This answers in the API's shape, then closes
 * the connection: the rest of what it carries cannot be framed.
 *
 * It closes as RFC 9112 §9.6 asks: the answer, then our half of the
 * connection, then reading on (and discarding) for LINGER_MS or until the
 * client closes its half. Destroying the socket at once, with the client's
 * body still arriving (a 414 comes before the body is read), reset the
 * connection, and a client still writing its body saw ECONNRESET instead of
 * the answer.
 */
export function answerMalformedRequest(error: ParserError, socket: Socket): void {
  // A reset connection has nobody left to answer; one answered already is lingering.
  if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
  // Its request has had its answer (a 401, say) and only the rest of its body was awaited: a second would answer nothing.
  if (!socket.writable || wasAnsweredBeforeBody(socket)) {
    socket.destroy();
    return;
  }
  answered.add(socket);
  const domainError = describe(error);
  const body = JSON.stringify(domainError.toBody());
  socket.end(
    `HTTP/1.1 ${domainError.httpStatus} ${STATUS_CODES[domainError.httpStatus]}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `${SECURITY_HEADER_LINES}Connection: close\r\n\r\n${body}`,
  );
  // Flowing with nothing to hand the bytes to: what the client still sends is read and dropped.
  socket.resume();
  socket.once('end', () => socket.destroy());
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
