import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import type { MailroomConfig } from '@mailroom/config';
import { HealthReply, HealthSubjects, ServiceName } from '@mailroom/contracts';
import { MAILROOM_CONFIG, RpcClient } from '@mailroom/runtime';
import { NATS_CLIENT } from './nats-client.provider';

type HealthRpc = { [S in (typeof HealthSubjects)[ServiceName]]: { payload: Record<string, never>; reply: HealthReply } };

@Injectable()
export class HealthClient {
  private readonly rpc: RpcClient<HealthRpc>;

  constructor(@Inject(NATS_CLIENT) client: ClientProxy, @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig) {
    this.rpc = new RpcClient<HealthRpc>(client, config.HEALTH_TIMEOUT_MS, 'health');
  }

  /** Asks every service at once; a service that does not answer in time is down. */
  async checkAll(): Promise<Record<ServiceName, 'ok' | 'down'>> {
    const services = Object.keys(HealthSubjects) as ServiceName[];
    const results = await Promise.all(
      services.map((service) =>
        this.rpc.request(HealthSubjects[service], {}).then(
          (reply) => (reply.status === 'ok' ? 'ok' : 'down'),
          () => 'down',
        ),
      ),
    );
    return Object.fromEntries(services.map((service, index) => [service, results[index]])) as Record<ServiceName, 'ok' | 'down'>;
  }
}
