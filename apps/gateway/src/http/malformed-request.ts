import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { DomainError, ErrorCode } from '@mailroom/errors';

/** What Node's HTTP parser reports (llhttp's HPE_* codes, or Node's own). */
type ParserError = Error & { code?: string };

function describe(error: ParserError): DomainError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new DomainError(ErrorCode.PayloadTooLarge, 'The request headers are larger than this server reads.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new DomainError(ErrorCode.InvalidJson, 'The request did not arrive completely in time.');
    default:
      return new DomainError(ErrorCode.InvalidJson, `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}).`);
  }
}

/**
 * Requests Node's HTTP parser cannot read (a control character in a header,
 * a Content-Length that is no number, broken chunked encoding, headers over
 * the size limit) never reach a route or Nest's filter: Fastify answered them
 * itself, in a shape of its own. This answers in the API's shape, then closes
 * the connection, as Node does: the rest of what it carries cannot be framed.
 */
export function answerMalformedRequest(error: ParserError, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const domainError = describe(error);
    const body = JSON.stringify(domainError.toBody());
    socket.write(
      `HTTP/1.1 ${domainError.httpStatus} ${STATUS_CODES[domainError.httpStatus]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
