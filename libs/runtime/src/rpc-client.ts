import { ClientProxy } from '@nestjs/microservices';
import { DomainError, ErrorCode, fromRpcError } from '@mailroom/errors';
import type { RpcMap } from '@mailroom/contracts';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';

/**
 * The base of every typed client: a subject's payload and reply types come
 * from the service's contract map, a slow service becomes 503
 * service_unavailable, and a service's error comes back as a DomainError.
 */
export class RpcClient<M extends RpcMap<M>> {
  constructor(
    private readonly client: ClientProxy,
    private readonly timeoutMs: number,
    private readonly serviceName: string,
  ) {}

  async request<S extends keyof M & string>(subject: S, payload: M[S]['payload'], timeoutMs = this.timeoutMs): Promise<M[S]['reply']> {
    try {
      return await firstValueFrom(this.client.send<M[S]['reply'], M[S]['payload']>(subject, payload).pipe(timeout(timeoutMs)));
    } catch (error) {
      if (error instanceof TimeoutError) {
        throw new DomainError(ErrorCode.ServiceUnavailable, `The ${this.serviceName} service did not answer in time; try again.`);
      }
      throw fromRpcError(error);
    }
  }

  emit(subject: string, payload: unknown): void {
    this.client.emit(subject, payload).subscribe({ error: () => undefined });
  }
}
