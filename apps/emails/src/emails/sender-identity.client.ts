import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import { SENDER_IDENTITY_SUBJECT, SenderIdentityPayload, SenderIdentityReply } from '@mailroom/contracts';
import type { MailroomConfig } from '@mailroom/config';
import { DomainDeletionWatch, inRequestWaitMs, LastReadWhileAway, MAILROOM_CONFIG, RpcClient } from '@mailroom/runtime';

/** What a send needs of its domain: whether it may send, and which domain it is (a name added again is another). */
export type SendingDomain = Pick<NonNullable<SenderIdentityReply['identity']>, 'status' | 'domainId'>;

export const EMAILS_NATS_CLIENT = Symbol('EmailsNatsClient');

type DomainsSenderRpc = { [SENDER_IDENTITY_SUBJECT]: { payload: SenderIdentityPayload; reply: SenderIdentityReply } };

/**
 * How long a send waits for the domains service: 2 s, and never more than
 * half of RPC_TIMEOUT_MS, the gateway's wait for the whole send. A silent
 * domains service then surfaces as this service's 503, with nothing stored;
 * fixed at 2 s, an RPC_TIMEOUT_MS under that had the gateway answer 503
 * while the send went on and was stored, so a client that retried it sent
 * the email twice.
 */
export function domainsTimeoutMs(rpcTimeoutMs: number): number {
  return inRequestWaitMs(rpcTimeoutMs);
}

/**
 * Asks the domains service about a sending domain; the emails service never reads the domains schema.
 * A deleted domain (`sending-domain.deleted`) is remembered as unknown, so the stand-in below never
 * answers "verified" for it.
 */
@Injectable()
export class SenderIdentityClient implements OnModuleInit, OnModuleDestroy {
  private readonly rpc: RpcClient<DomainsSenderRpc>;
  private readonly lastRead = new LastReadWhileAway<SendingDomain | null>();
  private readonly deletions: DomainDeletionWatch;

  constructor(@Inject(EMAILS_NATS_CLIENT) client: ClientProxy, @Inject(MAILROOM_CONFIG) config: MailroomConfig) {
    this.rpc = new RpcClient<DomainsSenderRpc>(client, domainsTimeoutMs(config.RPC_TIMEOUT_MS), 'domains');
    this.deletions = new DomainDeletionWatch(config, this, new Logger(SenderIdentityClient.name));
  }

  onModuleInit(): Promise<void> {
    return this.deletions.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.deletions.stop();
  }

  /** The domain was deleted: what the domains service would answer now, even while it is away. */
  evict(domain: string): void {
    this.lastRead.remember(domain, null);
  }

  /** Every send asks afresh; only the stand-in could be stale, and it is worth more than a missed deletion costs (see below). */
  clear(): void {}

  /**
   * While the domains service is away (a restart, a deploy, its database
   * down), the status it last gave within the day, so live sends from a domain
   * already in use are still accepted: nothing about a domain changes while
   * the service that changes it is away. A domain not asked about since this
   * process started is a 503, as before.
   */
  async find(domain: string): Promise<SendingDomain | null> {
    try {
      const { identity } = await this.rpc.request(SENDER_IDENTITY_SUBJECT, { name: domain });
      return this.lastRead.remember(domain, identity ? { status: identity.status, domainId: identity.domainId } : null);
    } catch (error) {
      return this.lastRead.standIn(domain, error);
    }
  }
}
