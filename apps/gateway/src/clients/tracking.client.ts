import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import type { MailroomConfig } from '@mailroom/config';
import { TrackingHitPayload, TrackingRpc, TrackingSubjects } from '@mailroom/contracts';
import { MAILROOM_CONFIG, RpcClient } from '@mailroom/runtime';
import { NATS_CLIENT } from './nats-client.provider';

@Injectable()
export class TrackingClient {
  private readonly rpc: RpcClient<TrackingRpc>;

  constructor(@Inject(NATS_CLIENT) client: ClientProxy, @Inject(MAILROOM_CONFIG) config: MailroomConfig) {
    this.rpc = new RpcClient<TrackingRpc>(client, config.RPC_TIMEOUT_MS, 'emails');
  }

  open(hit: TrackingHitPayload) {
    return this.rpc.request(TrackingSubjects.open, hit);
  }
  click(hit: TrackingHitPayload) {
    return this.rpc.request(TrackingSubjects.click, hit);
  }
}
