import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import { previousKeyIdsNote, SecretBox, secretBoxFromConfig } from '@mailroom/auth';
import type { MailroomConfig } from '@mailroom/config';
import { SENDER_IDENTITY_SUBJECT, SenderIdentityPayload, SenderIdentityReply } from '@mailroom/contracts';
import { DomainDeletionWatch, LastReadWhileAway, MAILROOM_CONFIG, RepeatedFailureLog, RpcClient } from '@mailroom/runtime';
import { OpenedSenderIdentity, openSenderIdentity } from './open-sender-identity';

export const DELIVERY_NATS_CLIENT = Symbol('DeliveryNatsClient');

/** While the domains service is away, how long a stale identity is used before asking again. */
const STALE_RETRY_MS = 5_000;

type SenderIdentityRpc = { [SENDER_IDENTITY_SUBJECT]: { payload: SenderIdentityPayload; reply: SenderIdentityReply } };

/**
 * The DKIM key, selector and tracking settings of a sending domain, asked of
 * the domains service and cached briefly (SENDER_IDENTITY_CACHE_TTL): a burst
 * of mail from one domain costs one request, and a rotated key or a
 * PATCH /v1/domains/{id} (tracking switches, tracking domain) reaches mail
 * within the TTL.
 * The key arrives sealed under ENCRYPTION_KEY and is opened here, once per
 * domain per TTL; the opened key lives only in memory and is never logged.
 * A deleted domain is dropped at once (`sending-domain.deleted`, on every replica):
 * an email accepted as the deletion ran must fail, not be signed with a key
 * no longer in DNS.
 */
@Injectable()
export class SenderIdentityCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SenderIdentityCache.name);
  /** Every attempt from a domain whose key does not open fails the same way; one line per 30 s says so. */
  private readonly openFailures = new RepeatedFailureLog(this.logger, 'opening the DKIM keys the domains service sends');
  private readonly rpc: RpcClient<SenderIdentityRpc>;
  private readonly entries = new Map<string, { expiresAt: number; identity: Promise<OpenedSenderIdentity | null> }>();
  /** What the domains service last said of each domain: answered while it is away (see standIn). */
  private readonly lastRead = new LastReadWhileAway<OpenedSenderIdentity | null>();
  private readonly box: SecretBox;
  private readonly deletions: DomainDeletionWatch;

  constructor(@Inject(DELIVERY_NATS_CLIENT) client: ClientProxy, @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig) {
    this.rpc = new RpcClient<SenderIdentityRpc>(client, config.RPC_TIMEOUT_MS, 'domains');
    // No warning here when ENCRYPTION_KEY is unset: the tracking tokens already log one at boot.
    this.box = secretBoxFromConfig(config);
    this.deletions = new DomainDeletionWatch(config, this, this.logger);
    // The domains service logs the id it seals with: the two boot lines must show the same id.
    this.logger.log(`ENCRYPTION_KEY id ${this.box.keyId} opens the DKIM keys the domains service sends${previousKeyIdsNote(this.box)}`);
  }

  onModuleInit(): Promise<void> {
    return this.deletions.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.deletions.stop();
  }

  /** The domain was deleted: the domains service would now answer that it does not know it, even while away. */
  evict(domain: string): void {
    this.entries.delete(domain);
    this.lastRead.remember(domain, null);
  }

  /** A deletion may have been missed (NATS reconnected): ask again about every domain. */
  clear(): void {
    this.entries.clear();
  }

  /**
   * The identity with its key opened, or null when the domains service does not know the domain.
   * Throws when it does not answer, or when its key does not open (ENCRYPTION_KEY differs, and the key it was
   * sealed with is not in ENCRYPTION_KEY_PREVIOUS).
   */
  get(domain: string): Promise<OpenedSenderIdentity | null> {
    const now = Date.now();
    const cached = this.entries.get(domain);
    if (cached && cached.expiresAt > now) return cached.identity;
    const identity = this.rpc.request(SENDER_IDENTITY_SUBJECT, { name: domain }).then(
      (reply) => this.lastRead.remember(domain, reply.identity && this.open(reply.identity), now),
      (error: unknown) => this.standIn(domain, error, now),
    );
    this.entries.set(domain, { expiresAt: now + this.config.SENDER_IDENTITY_CACHE_TTL, identity });
    // A failed lookup is not cached: the next attempt asks again.
    identity.catch(() => this.entries.delete(domain));
    return identity;
  }

  /**
   * While the domains service is away (a restart, a deploy, its database
   * down), the identity last read within the day, used for STALE_RETRY_MS
   * before asking again: without it every email from the domain would spend
   * attempts of its retry schedule waiting. A key that does not open, or a
   * domain never read, fails as it came.
   */
  private standIn(domain: string, error: unknown, now: number): OpenedSenderIdentity | null {
    const identity = this.lastRead.standIn(domain, error, now);
    this.entries.set(domain, { expiresAt: now + STALE_RETRY_MS, identity: Promise.resolve(identity) });
    return identity;
  }

  private open(identity: NonNullable<SenderIdentityReply['identity']>): OpenedSenderIdentity {
    try {
      const opened = openSenderIdentity(identity, this.box);
      this.openFailures.succeeded();
      return opened;
    } catch (error) {
      this.openFailures.failed(error);
      throw error;
    }
  }
}
