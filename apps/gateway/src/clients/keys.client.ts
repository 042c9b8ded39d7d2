import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import type { MailroomConfig } from '@mailroom/config';
import {
  ApiKeyCreateInput,
  ApiKeysUsedEvent,
  ApiKeyUpdateInput,
  KeysRpc,
  KeysSubjects,
  ListParams,
  RequestContext,
  VerifiedApiKey,
} from '@mailroom/contracts';
import { MAILROOM_CONFIG, RpcClient } from '@mailroom/runtime';
import { NATS_CLIENT } from './nats-client.provider';
import { pageThatFits } from './page-that-fits';

@Injectable()
export class KeysClient {
  private readonly rpc: RpcClient<KeysRpc>;

  constructor(@Inject(NATS_CLIENT) client: ClientProxy, @Inject(MAILROOM_CONFIG) config: MailroomConfig) {
    this.rpc = new RpcClient<KeysRpc>(client, config.RPC_TIMEOUT_MS, 'keys');
  }

  create(ctx: RequestContext, caller: VerifiedApiKey, input: ApiKeyCreateInput) {
    return this.rpc.request(KeysSubjects.create, { ctx, caller, input });
  }
  list(ctx: RequestContext, params: ListParams) {
    return pageThatFits(params, (page) => this.rpc.request(KeysSubjects.list, { ctx, params: page }));
  }
  get(ctx: RequestContext, id: string) {
    return this.rpc.request(KeysSubjects.get, { ctx, id });
  }
  update(ctx: RequestContext, caller: VerifiedApiKey, id: string, input: ApiKeyUpdateInput) {
    return this.rpc.request(KeysSubjects.update, { ctx, caller, id, input });
  }
  delete(ctx: RequestContext, caller: VerifiedApiKey, id: string) {
    return this.rpc.request(KeysSubjects.delete, { ctx, caller, id });
  }
  verify(keyHash: string) {
    return this.rpc.request(KeysSubjects.verify, { keyHash });
  }
  async recordUses(uses: ApiKeysUsedEvent): Promise<void> {
    await this.rpc.request(KeysSubjects.recordUses, uses);
  }
}
