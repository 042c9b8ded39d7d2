import { IncomingMessage } from 'node:http';
import { request, RequestOptions } from 'node:https';

/** What an outbound HTTPS exchange that did not get through says went wrong, for the log; `code` is the socket error's (a certificate refused, say). */
export type HttpsFailure = { ok: false; reason: string; code?: string };

/**
 * One HTTPS request to a host a recipient domain names (its MTA-STS policy host, its TLS report endpoint), on a
 * socket of its own, that settles exactly once: with what `onResponse` makes of the answer, with the socket's error,
 * or when nothing complete came back within `timeoutMs`; the socket is destroyed then, whichever it was.
 */
export function httpsExchange<T>(
  options: RequestOptions,
  timeoutMs: number,
  onResponse: (response: IncomingMessage, finish: (result: T | HttpsFailure) => void) => void,
  body?: Buffer,
): Promise<T | HttpsFailure> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: T | HttpsFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      resolve(result);
    };
    // One-off: a kept-alive socket would outlive the checks its lookup made.
    const outgoing = request(Object.assign({}, options, { agent: false }));
    const timer = setTimeout(() => finish({ ok: false, reason: `no complete answer within ${timeoutMs} ms` }), timeoutMs);
    outgoing.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, reason: error.code ? `${error.code}: ${error.message}` : error.message, code: error.code }));
    outgoing.on('response', (response: IncomingMessage) => onResponse(response, finish));
    outgoing.end(body);
  });
}

/** `HTTP 301 (a redirect, which is not followed)`: how an answer other than a 2xx is told. */
export function notTaken(response: IncomingMessage): HttpsFailure {
  return { ok: false, reason: `HTTP ${response.statusCode ?? 0}${response.headers.location ? ' (a redirect, which is not followed)' : ''}` };
}
