import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { DomainError } from '@mailroom/errors';
import { SECURITY_HEADER_LINES } from './security-headers';

/**
 * How long a connection answered this way is read from (and what arrives
 * thrown away) before it is closed for good.
 */
const LINGER_MS = 2_000;

export interface SocketAnswerOptions {
  /** Header lines of this answer's own (`Allow: GET, HEAD\r\n`), before the security headers. */
  headerLines?: string;
  /** A HEAD request's answer: the headers, Content-Length included, and no content (RFC 9110 §9.3.2). */
  head?: boolean;
}

/**
 * Answers, in the API's shape, a request that never reaches a route (Node's
 * parser could not read it, or it asked for a tunnel), on the API port or the
 * operations port, written straight to its socket, then closes the
 * connection: the rest of what it carries cannot be framed as requests.
 *
 * It closes as RFC 9112 §9.6 asks: the answer, then our half of the
 * connection, then reading on (and discarding) for LINGER_MS or until the
 * client closes its half. Destroying the socket at once, with the client's
 * body still arriving (a 414 comes before the body is read), reset the
 * connection, and a client still writing its body saw ECONNRESET instead of
 * the answer.
 */
export function answerOnSocketAndClose(socket: Duplex, error: DomainError, { headerLines = '', head = false }: SocketAnswerOptions = {}): void {
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${error.httpStatus} ${STATUS_CODES[error.httpStatus]}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `${headerLines}${SECURITY_HEADER_LINES}Connection: close\r\n\r\n${head ? '' : body}`,
  );
  // Flowing with nothing to hand the bytes to: what the client still sends is read and dropped.
  socket.resume();
  socket.once('end', () => socket.destroy());
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
