import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import type { MailroomConfig } from '@mailroom/config';
import { AnalyticsParams, AnalyticsRpc, AnalyticsSubjects, RequestContext } from '@mailroom/contracts';
import { MAILROOM_CONFIG, RpcClient } from '@mailroom/runtime';
import { NATS_CLIENT } from './nats-client.provider';

@Injectable()
export class AnalyticsClient {
  private readonly rpc: RpcClient<AnalyticsRpc>;

  constructor(@Inject(NATS_CLIENT) client: ClientProxy, @Inject(MAILROOM_CONFIG) config: MailroomConfig) {
    this.rpc = new RpcClient<AnalyticsRpc>(client, config.RPC_TIMEOUT_MS, 'emails');
  }

  query(ctx: RequestContext, params: AnalyticsParams) {
    return this.rpc.request(AnalyticsSubjects.query, { ctx, params });
  }
}
