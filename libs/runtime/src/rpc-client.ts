import { ClientProxy, NatsRecordBuilder } from '@nestjs/microservices';
import { DomainError, ErrorCode, fromRpcError } from '@mailroom/errors';
import type { RpcMap } from '@mailroom/contracts';
import { headers as natsHeaders } from 'nats';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';
import { natsRequestDuration } from './metrics';

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
    try {
      const reply = await firstValueFrom(this.client.send<M[S]['reply']>(subject, withRequestId(payload)).pipe(timeout(timeoutMs)));
      stopTimer({ outcome: 'ok' });
      return reply;
    } catch (error) {
      if (error instanceof TimeoutError) {
        stopTimer({ outcome: 'timeout' });
        throw new DomainError(ErrorCode.ServiceUnavailable, `The ${this.serviceName} service did not answer in time; try again.`);
      }
      stopTimer({ outcome: 'error' });
      throw fromRpcError(error);
    }
  }

  emit(subject: string, payload: unknown): void {
    this.client.emit(subject, payload).subscribe({ error: () => undefined });
  }
}

function withRequestId(payload: unknown): unknown {
  const requestId = (payload as { ctx?: { requestId?: string } } | null)?.ctx?.requestId;
  if (!requestId) return payload;
  const headers = natsHeaders();
  headers.set(REQUEST_ID_HEADER, requestId);
  return new NatsRecordBuilder(payload).setHeaders(headers).build();
}
