import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import type { MailroomConfig } from '@mailroom/config';
import { DomainCreateInput, DomainsRpc, DomainsSubjects, DomainStatus, DomainUpdateInput, ListParams, RequestContext } from '@mailroom/contracts';
import { MAILROOM_CONFIG, RpcClient } from '@mailroom/runtime';
import { NATS_CLIENT } from './nats-client.provider';
import { pageThatFits } from './page-that-fits';

@Injectable()
export class DomainsClient {
  private readonly rpc: RpcClient<DomainsRpc>;

  constructor(@Inject(NATS_CLIENT) client: ClientProxy, @Inject(MAILROOM_CONFIG) config: MailroomConfig) {
    this.rpc = new RpcClient<DomainsRpc>(client, config.RPC_TIMEOUT_MS, 'domains');
  }

  create(ctx: RequestContext, input: DomainCreateInput) {
    return this.rpc.request(DomainsSubjects.create, { ctx, input });
  }
  list(ctx: RequestContext, params: ListParams, status?: DomainStatus) {
    return pageThatFits(params, (page) => this.rpc.request(DomainsSubjects.list, { ctx, params: page, status }));
  }
  get(ctx: RequestContext, id: string) {
    return this.rpc.request(DomainsSubjects.get, { ctx, id });
  }
  update(ctx: RequestContext, id: string, input: DomainUpdateInput) {
    return this.rpc.request(DomainsSubjects.update, { ctx, id, input });
  }
  /** The ctx lets the domains service leave out what a restricted key may not see. */
  zoneExport(ctx: RequestContext) {
    return this.rpc.request(DomainsSubjects.zoneExport, { ctx });
  }
  verify(ctx: RequestContext, id: string) {
    return this.rpc.request(DomainsSubjects.verify, { ctx, id });
  }
  rotateDkim(ctx: RequestContext, id: string) {
    return this.rpc.request(DomainsSubjects.rotateDkim, { ctx, id });
  }
  delete(ctx: RequestContext, id: string) {
    return this.rpc.request(DomainsSubjects.delete, { ctx, id });
  }
}
