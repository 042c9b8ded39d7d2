import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import { SENDER_IDENTITY_SUBJECT, SenderIdentityPayload, SenderIdentityReply } from '@mailroom/contracts';
import { LastReadWhileAway, RpcClient } from '@mailroom/runtime';

type DomainStatus = NonNullable<SenderIdentityReply['identity']>['status'];

export const EMAILS_NATS_CLIENT = Symbol('EmailsNatsClient');

type DomainsSenderRpc = { [SENDER_IDENTITY_SUBJECT]: { payload: SenderIdentityPayload; reply: SenderIdentityReply } };

/**
 * Shorter than the gateway's RPC_TIMEOUT_MS (5 s by default), so a silent
 * domains service surfaces as this service's 503 rather than the gateway's.
 */
const DOMAINS_TIMEOUT_MS = 2000;

/** Asks the domains service about a sending domain; the emails service never reads the domains schema. */
@Injectable()
export class SenderIdentityClient {
  private readonly rpc: RpcClient<DomainsSenderRpc>;
  private readonly lastRead = new LastReadWhileAway<DomainStatus | null>();

  constructor(@Inject(EMAILS_NATS_CLIENT) client: ClientProxy) {
    this.rpc = new RpcClient<DomainsSenderRpc>(client, DOMAINS_TIMEOUT_MS, 'domains');
  }

  /**
   * While the domains service is away (a restart, a deploy, its database
   * down), the status it last gave within the day, so live sends from a domain
   * already in use are still accepted: nothing about a domain changes while
   * the service that changes it is away. A domain not asked about since this
   * process started is a 503, as before.
   */
  async statusOf(domain: string): Promise<DomainStatus | null> {
    try {
      const reply = await this.rpc.request(SENDER_IDENTITY_SUBJECT, { name: domain });
      return this.lastRead.remember(domain, reply.identity?.status ?? null);
    } catch (error) {
      return this.lastRead.standIn(domain, error);
    }
  }
}
