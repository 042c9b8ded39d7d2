import { ClientProxy } from '@nestjs/microservices';
import { DomainError, ErrorCode, fromRpcError } from '@mailroom/errors';
import { isPlainObject, parseJsonBytes, type RpcMap } from '@mailroom/contracts';
import { randomUUID } from 'node:crypto';
import { headers as natsHeaders, MsgHdrs, NatsConnection } from 'nats';
import { natsRequestDuration } from './metrics';
import { NATS_HEADER_ROOM_BYTES } from './oversized-reply';
import { NoReplyError, ReplyInbox } from './reply-inbox';
import { setRpcBudget } from './rpc-deadline';

/** Nest's reply shape: the handler's answer, or the error its RPC filter serialized. */
interface ReplyPacket {
  response?: unknown;
  err?: unknown;
}

/** The reply packet, or an error that says what is wrong without quoting the answer (it may hold a secret, a new API key). */
function readReply(data: Uint8Array): ReplyPacket {
  const packet = parseJsonBytes(data);
  if (packet === undefined) throw new Error(`${data.length} bytes that are not JSON`);
  if (!isPlainObject(packet)) throw new Error(`JSON that is no object (${packet === null ? 'null' : Array.isArray(packet) ? 'an array' : typeof packet})`);
  return packet;
}

/** One muxed inbox per connection, shared by every client that uses it. */
const inboxes = new WeakMap<NatsConnection, ReplyInbox>();
function inboxFor(connection: NatsConnection): ReplyInbox {
  let inbox = inboxes.get(connection);
  if (!inbox) inboxes.set(connection, (inbox = new ReplyInbox(connection)));
  return inbox;
}

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * The base of every typed client: a subject's payload and reply types come
 * from the service's contract map, a slow service becomes 503
 * service_unavailable, and a service's error comes back as a DomainError.
 * The caller's request id travels in a NATS header so logs can be joined,
 * and so does how long the caller waits (RPC_BUDGET_HEADER), so a service can
 * drop work nobody waits for any more.
 */
export class RpcClient<M extends RpcMap<M>> {
  /**
   * @param tooLarge builds the error for a request larger than the server's
   * max_payload, which nats.js would refuse to publish (a 500): a body the
   * gateway takes (up to BODY_LIMIT_BYTES, 10 MB) can be larger than the
   * 1 MB a NATS server carries by default. A client may say what to send
   * instead; by default the caller is told to send a smaller body.
   */
  constructor(
    private readonly client: ClientProxy,
    private readonly timeoutMs: number,
    private readonly serviceName: string,
    private readonly tooLarge: (bytes: number, maxPayload: number) => Error = requestTooLarge,
  ) {}

  /**
   * @param options.answerRoomBytes room the answer needs in a NATS message
   * beyond the request's own size, checked before anything is sent: an
   * answer too large to send back would leave the caller waiting for work
   * that was done.
   */
  async request<S extends keyof M & string>(
    subject: S,
    payload: M[S]['payload'],
    { timeoutMs = this.timeoutMs, answerRoomBytes = 0 }: { timeoutMs?: number; answerRoomBytes?: number } = {},
  ): Promise<M[S]['reply']> {
    const stopTimer = natsRequestDuration.startTimer({ subject });
    // Nest's ClientProxy subscribes a fresh inbox per request; a shared muxed inbox halves the NATS
    // traffic per call. The wire format stays Nest's ({pattern, data, id} → {response, err}).
    const connection = await this.connection(stopTimer);
    // Encoded once here, so that the size check and the publish share the bytes.
    const body = Buffer.from(JSON.stringify({ pattern: subject, data: payload, id: randomUUID() }));
    this.assertFits(connection, body.length + answerRoomBytes, stopTimer);
    let message;
    try {
      message = await inboxFor(connection).request(subject, body, timeoutMs, requestHeaders(payload, timeoutMs));
    } catch (error) {
      if (error instanceof NoReplyError) {
        stopTimer({ outcome: error.reason });
        throw this.noReply(error);
      }
      stopTimer({ outcome: 'error' });
      if (isConnectionLoss(error)) throw busUnavailable();
      throw fromRpcError(error);
    }
    let packet: ReplyPacket;
    try {
      packet = readReply(message.data);
    } catch (error) {
      stopTimer({ outcome: 'error' });
      // Not a DomainError: the gateway logs it with an error id and answers 500, as a bug in the other service is.
      throw new Error(`The ${this.serviceName} service answered ${subject} with something that is not a reply: ${(error as Error).message}`);
    }
    if (packet.err !== undefined && packet.err !== null) {
      stopTimer({ outcome: 'error' });
      throw fromRpcError(packet.err);
    }
    stopTimer({ outcome: 'ok' });
    return packet.response as M[S]['reply'];
  }

  /**
   * Says which it was, as the metric does: nobody subscribed (NATS answers that
   * at once: the service is down or still starting) is a different thing to
   * look for than a service that took the request and stayed silent.
   */
  private noReply(error: NoReplyError): DomainError {
    const what = {
      no_responders: 'is not running (nothing takes its requests)',
      timeout: 'did not answer in time',
      disconnected: 'did not answer: the connection to the message bus (NATS) dropped before its answer came, so whether it was done is unknown',
    }[error.reason];
    return new DomainError(ErrorCode.ServiceUnavailable, `The ${this.serviceName} service ${what}; try again.`);
  }

  /** Nest's client rejects with a bare string while NATS is reconnecting: that is a 503 to retry, not a bug. */
  private async connection(stopTimer: (labels: { outcome: string }) => void): Promise<NatsConnection> {
    try {
      return await this.client.connect();
    } catch {
      stopTimer({ outcome: 'error' });
      throw busUnavailable();
    }
  }

  private assertFits(connection: NatsConnection, bodyBytes: number, stopTimer: (labels: { outcome: string }) => void): void {
    const maxPayload = connection.info?.max_payload;
    if (!maxPayload) return;
    const bytes = bodyBytes + NATS_HEADER_ROOM_BYTES;
    if (bytes <= maxPayload) return;
    stopTimer({ outcome: 'error' });
    throw this.tooLarge(bytes, maxPayload);
  }
}

/** nats.js error codes for a connection that is gone or going. */
const CONNECTION_LOSS_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_DRAINING', 'DISCONNECT', 'CONNECTION_REFUSED']);

function isConnectionLoss(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONNECTION_LOSS_CODES.has(code);
}

function requestTooLarge(bytes: number, maxPayload: number): DomainError {
  return new DomainError(
    ErrorCode.PayloadTooLarge,
    `The request comes to about ${bytes} bytes, more than the ${maxPayload} bytes this installation's message bus carries (NATS max_payload); send a smaller body.`,
  );
}

function busUnavailable(): DomainError {
  return new DomainError(ErrorCode.ServiceUnavailable, 'The message bus (NATS) cannot be reached right now; try again shortly.');
}

function requestHeaders(payload: unknown, timeoutMs: number): MsgHdrs {
  const headers = natsHeaders();
  // From now: the timer that ends the wait starts with the request, which is published at the end of this loop turn.
  setRpcBudget(headers, timeoutMs);
  const requestId = (payload as { ctx?: { requestId?: string } } | null)?.ctx?.requestId;
  if (requestId) headers.set(REQUEST_ID_HEADER, requestId);
  return headers;
}
