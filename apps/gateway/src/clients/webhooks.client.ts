import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import type { MailroomConfig } from '@mailroom/config';
import {
  DeliveryStatus,
  IdempotencyInput,
  ListParams,
  RequestContext,
  WebhookCreateInput,
  WebhooksRpc,
  WebhookStatus,
  WebhooksSubjects,
  WebhookUpdateInput,
} from '@mailroom/contracts';
import { MAILROOM_CONFIG, RpcClient } from '@mailroom/runtime';
import { NATS_CLIENT } from './nats-client.provider';
import { pageThatFits } from './page-that-fits';

@Injectable()
export class WebhooksClient {
  private readonly rpc: RpcClient<WebhooksRpc>;

  constructor(@Inject(NATS_CLIENT) client: ClientProxy, @Inject(MAILROOM_CONFIG) config: MailroomConfig) {
    this.rpc = new RpcClient<WebhooksRpc>(client, config.RPC_TIMEOUT_MS, 'webhook-dispatcher');
  }

  create(ctx: RequestContext, input: WebhookCreateInput, idempotency?: IdempotencyInput) {
    return this.rpc.request(WebhooksSubjects.create, { ctx, input, idempotency });
  }
  list(ctx: RequestContext, params: ListParams, status?: WebhookStatus) {
    return pageThatFits(params, (page) => this.rpc.request(WebhooksSubjects.list, { ctx, params: page, status }));
  }
  get(ctx: RequestContext, id: string) {
    return this.rpc.request(WebhooksSubjects.get, { ctx, id });
  }
  update(ctx: RequestContext, id: string, input: WebhookUpdateInput) {
    return this.rpc.request(WebhooksSubjects.update, { ctx, id, input });
  }
  delete(ctx: RequestContext, id: string) {
    return this.rpc.request(WebhooksSubjects.delete, { ctx, id });
  }
  getSecret(ctx: RequestContext, id: string) {
    return this.rpc.request(WebhooksSubjects.getSecret, { ctx, id });
  }
  rotateSecret(ctx: RequestContext, id: string) {
    return this.rpc.request(WebhooksSubjects.rotateSecret, { ctx, id });
  }
  listDeliveries(ctx: RequestContext, webhookId: string, params: ListParams, status?: DeliveryStatus) {
    return pageThatFits(params, (page) => this.rpc.request(WebhooksSubjects.listDeliveries, { ctx, webhookId, params: page, status }));
  }
  retryDelivery(ctx: RequestContext, webhookId: string, deliveryId: string) {
    return this.rpc.request(WebhooksSubjects.retryDelivery, { ctx, webhookId, deliveryId });
  }
  sendTest(ctx: RequestContext, id: string) {
    return this.rpc.request(WebhooksSubjects.sendTest, { ctx, id });
  }
}
