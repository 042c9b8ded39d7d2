import { Agent as HttpAgent, IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { assertLiteralAllowed, RefusedAddressError } from '../ssrf/guarded-lookup';
import { assertSchemeAllowed, RefusedSchemeError, UrlPolicy } from '../ssrf/url-policy';
import type { HttpResult } from './attempt-outcome';
import { networkErrorMessage } from './network-error-message';

export interface SenderOptions extends UrlPolicy {
  timeoutMs: number;
  maxResponseBytes: number;
  /** How hosts are resolved (webhookLookup); undefined: Node's default, getaddrinfo. */
  lookup?: LookupFunction;
}

/**
 * A kept-alive connection left idle this long is closed (the agent destroys a free socket on its timeout).
 * Without it, an endpoint that never closes idle connections kept one descriptor per slot open for ever. It is
 * below the common server keep-alive timeouts (Node's 5 s), so the dispatcher, not the server, closes first, and
 * never reuses a socket the server is closing at that moment.
 */
const IDLE_SOCKET_MS = 4_000;
const AGENT_OPTIONS = { keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256, timeout: IDLE_SOCKET_MS };

/**
 * POSTs one signed body. Keep-alive agents reuse connections to busy
 * endpoints; every new connection resolves its host through `lookup` (with
 * the SSRF guard on, it checks the addresses).
 * The whole exchange (connect, headers, body) must fit in the timeout, and
 * at most maxResponseBytes of the answer are read.
 */
export class WebhookSender {
  private readonly httpAgent = new HttpAgent(AGENT_OPTIONS);
  private readonly httpsAgent = new HttpsAgent(AGENT_OPTIONS);
  private readonly inFlight = new Set<() => void>();

  constructor(private readonly options: SenderOptions) {}

  send(url: string, body: string, headers: Record<string, string>): Promise<HttpResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let target: URL;
    try {
      target = new URL(url);
      assertSchemeAllowed(target, this.options);
      if (!this.options.allowPrivateNetworks) assertLiteralAllowed(target.hostname);
    } catch (error) {
      // Answered before any request or timer exists: finish() below clears both, and reaching it from here threw
      // (a const read before its declaration), so the attempt was never recorded and the delivery stayed due for ever.
      return Promise.resolve({ statusCode: null, error: (error as Error).message, failure: failureOf(error), durationMs: elapsed() });
    }
    return new Promise<HttpResult>((resolve) => {
      let settled = false;
      const finish = (result: Omit<HttpResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inFlight.delete(abort);
        resolve(Object.assign({}, result, { durationMs: elapsed() }));
      };
      const secure = target.protocol === 'https:';
      const request = (secure ? httpsRequest : httpRequest)(target, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: Object.assign({}, headers, { 'content-length': String(Buffer.byteLength(body)) }),
        ...(this.options.lookup ? { lookup: this.options.lookup } : {}),
      });
      // Ends the attempt itself rather than waiting for the request to report its end: once Node has handed the
      // socket over (an upgrade, say), destroying the request reports nothing, and the attempt would never end.
      const giveUp = (failure: 'timeout' | 'aborted', message: string) => {
        request.destroy(new Error(message));
        finish({ statusCode: null, error: message, failure });
      };
      const abort = () => giveUp('aborted', 'dispatcher shutting down');
      this.inFlight.add(abort);
      const timer = setTimeout(() => giveUp('timeout', `no complete answer within ${this.options.timeoutMs} ms`), this.options.timeoutMs);
      request.on('error', (error) => finish({ statusCode: null, error: networkErrorMessage(error), failure: failureOf(error) }));
      request.on('response', (response: IncomingMessage) => this.readCapped(response, finish));
      // 101 Switching Protocols is no answer to a webhook: a failure with its status. Without a listener Node
      // destroys the socket and tells the request nothing, so the attempt (its slot and lease) never ended.
      request.on('upgrade', (response: IncomingMessage, socket: Socket) => {
        socket.destroy();
        finish({ statusCode: response.statusCode ?? null, error: null });
      });
      request.end(body);
    });
  }

  /** Aborts every request in flight (shutdown): their deliveries are released and sent again by whoever claims them. */
  abortAll(): void {
    for (const abort of [...this.inFlight]) abort();
  }

  close(): void {
    this.abortAll();
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private readCapped(response: IncomingMessage, finish: (result: Omit<HttpResult, 'durationMs'>) => void): void {
    const result = {
      statusCode: response.statusCode ?? null,
      error: null,
      retryAfter: header(response, 'retry-after'),
      location: header(response, 'location'),
    };
    let received = 0;
    response.on('data', (chunk: Buffer) => {
      received += chunk.length;
      // The status is all that counts; a huge answer must not cost memory, so the socket is dropped.
      if (received > this.options.maxResponseBytes) {
        response.destroy();
        finish(result);
      }
    });
    response.on('end', () => finish(result));
    response.on('error', () => finish(result));
    response.on('close', () => finish(result));
  }
}

/** A request the policy refused (its address or its scheme), or one the network failed. */
function failureOf(error: unknown): 'refused' | 'network' {
  return error instanceof RefusedAddressError || error instanceof RefusedSchemeError ? 'refused' : 'network';
}

function header(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
