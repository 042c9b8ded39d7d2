import { ClientProxy } from '@nestjs/microservices';
import { DomainError, ErrorCode, fromRpcError } from '@mailroom/errors';
import type { RpcMap } from '@mailroom/contracts';
import { randomUUID } from 'node:crypto';
import { ErrorCode as NatsErrorCode, headers as natsHeaders, JSONCodec, MsgHdrs, NatsConnection, NatsError } from 'nats';
import { natsRequestDuration } from './metrics';

const codec = JSONCodec<{ response?: unknown; err?: unknown }>();

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * The base of every typed client: a subject's payload and reply types come
 * from the service's contract map, a slow service becomes 503
 * service_unavailable, and a service's error comes back as a DomainError.
 * The caller's request id travels in a NATS header so logs can be joined.
 */
export class RpcClient<M extends RpcMap<M>> {
  constructor(
    private readonly client: ClientProxy,
    private readonly timeoutMs: number,
    private readonly serviceName: string,
  ) {}

  async request<S extends keyof M & string>(subject: S, payload: M[S]['payload'], timeoutMs = this.timeoutMs): Promise<M[S]['reply']> {
    const stopTimer = natsRequestDuration.startTimer({ subject });
    // Nest's ClientProxy subscribes a fresh inbox per request; nats.js request() shares one muxed inbox,
    // which halves the NATS traffic per call. The wire format stays Nest's ({pattern, data, id} → {response, err}).
    const connection: NatsConnection = await this.client.connect();
    let message;
    try {
      message = await connection.request(subject, JSON.stringify({ pattern: subject, data: payload, id: randomUUID() }), {
        timeout: timeoutMs,
        headers: requestHeaders(payload),
      });
    } catch (error) {
      const code = (error as NatsError).code;
      if (code === NatsErrorCode.Timeout || code === NatsErrorCode.NoResponders) {
        stopTimer({ outcome: code === NatsErrorCode.Timeout ? 'timeout' : 'no_responders' });
        throw new DomainError(ErrorCode.ServiceUnavailable, `The ${this.serviceName} service did not answer in time; try again.`);
      }
      stopTimer({ outcome: 'error' });
      throw fromRpcError(error);
    }
    const packet = codec.decode(message.data);
    if (packet.err !== undefined && packet.err !== null) {
      stopTimer({ outcome: 'error' });
      throw fromRpcError(packet.err);
    }
    stopTimer({ outcome: 'ok' });
    return packet.response as M[S]['reply'];
  }

  emit(subject: string, payload: unknown): void {
    this.client.emit(subject, payload).subscribe({ error: () => undefined });
  }
}

function requestHeaders(payload: unknown): MsgHdrs | undefined {
  const requestId = (payload as { ctx?: { requestId?: string } } | null)?.ctx?.requestId;
  if (!requestId) return undefined;
  const headers = natsHeaders();
  headers.set(REQUEST_ID_HEADER, requestId);
  return headers;
}
