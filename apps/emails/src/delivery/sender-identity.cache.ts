import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import type { MailroomConfig } from '@mailroom/config';
import { SENDER_IDENTITY_SUBJECT, SenderIdentity, SenderIdentityPayload, SenderIdentityReply } from '@mailroom/contracts';
import { MAILROOM_CONFIG, RpcClient } from '@mailroom/runtime';

export const DELIVERY_NATS_CLIENT = Symbol('DeliveryNatsClient');

type SenderIdentityRpc = { [SENDER_IDENTITY_SUBJECT]: { payload: SenderIdentityPayload; reply: SenderIdentityReply } };

/**
 * The DKIM key, selector and tracking settings of a sending domain, asked of
 * the domains service and cached briefly (SENDER_IDENTITY_CACHE_TTL): a burst
 * of mail from one domain costs one request, and a rotated key or a
 * PATCH /v1/domains/{id} (tracking switches, tracking domain) reaches mail
 * within the TTL.
 * The private key lives only in memory and is never logged.
 */
@Injectable()
export class SenderIdentityCache {
  private readonly rpc: RpcClient<SenderIdentityRpc>;
  private readonly entries = new Map<string, { expiresAt: number; identity: Promise<SenderIdentity | null> }>();

  constructor(@Inject(DELIVERY_NATS_CLIENT) client: ClientProxy, @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig) {
    this.rpc = new RpcClient<SenderIdentityRpc>(client, config.RPC_TIMEOUT_MS, 'domains');
  }

  /** The identity, or null when the domains service does not know the domain. Throws when it does not answer. */
  get(domain: string): Promise<SenderIdentity | null> {
    const now = Date.now();
    const cached = this.entries.get(domain);
    if (cached && cached.expiresAt > now) return cached.identity;
    const identity = this.rpc.request(SENDER_IDENTITY_SUBJECT, { name: domain }).then((reply) => reply.identity);
    this.entries.set(domain, { expiresAt: now + this.config.SENDER_IDENTITY_CACHE_TTL, identity });
    // A failed lookup is not cached: the next attempt asks again.
    identity.catch(() => this.entries.delete(domain));
    return identity;
  }
}
