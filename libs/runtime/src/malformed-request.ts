import { maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { answerOnSocketAndClose } from './answer-on-socket';

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
 * Whether the request was a HEAD, read from the bytes the parser was given (a
 * timeout carries none). Its answer has no content (RFC 9110 §9.3.2): a client
 * reads JSON after the headers as the start of a next answer, which Node's
 * reports as "Data after `Connection: close`".
 */
function askedWithHead(error: ParserError): boolean {
  return Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
}

/** Connections already answered: the parser reports each further chunk of them as another error. */
const answered = new WeakSet<Socket>();

/**
 * Requests Node's HTTP parser cannot read (a control character in a header,
 * a Content-Length that is no number, broken chunked encoding, a URL or
 * headers over the size limit) never reach a route or Nest's filter: Node (or
 * Fastify) answered them itself, in a shape of its own or with no body at all.
 * This answers in the API's shape, then closes the connection
 * (answerOnSocketAndClose): the rest of what it carries cannot be framed. For
 * a server's `clientError` event; `answeredAlready` names connections whose
 * request has had its answer already (the gateway's 401 before the body).
 */
export function answerMalformedRequest(error: ParserError, socket: Socket, answeredAlready: (socket: Socket) => boolean = () => false): void {
  // A reset connection has nobody left to answer; one answered already is lingering.
  if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
  // Its request has had its answer (a 401, say) and only the rest of its body was awaited: a second would answer nothing.
  if (!socket.writable || answeredAlready(socket)) {
    socket.destroy();
    return;
  }
  answered.add(socket);
  answerOnSocketAndClose(socket, describe(error), { head: askedWithHead(error) });
}
