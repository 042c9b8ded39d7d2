import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import { SENDER_IDENTITY_SUBJECT, SenderIdentityPayload, SenderIdentityReply } from '@mailroom/contracts';
import { RpcClient } from '@mailroom/runtime';

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

  constructor(@Inject(EMAILS_NATS_CLIENT) client: ClientProxy) {
    this.rpc = new RpcClient<DomainsSenderRpc>(client, DOMAINS_TIMEOUT_MS, 'domains');
  }

  async statusOf(domain: string): Promise<'pending' | 'verified' | 'failed' | null> {
    const reply = await this.rpc.request(SENDER_IDENTITY_SUBJECT, { name: domain });
    return reply.identity?.status ?? null;
  }
}
