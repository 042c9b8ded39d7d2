import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import { DOMAIN_USAGE_SUBJECT, DomainUsagePayload, DomainUsageReply } from '@mailroom/contracts';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { RpcClient } from '@mailroom/runtime';
import { DomainSettings } from './domain-settings';

export const DOMAINS_NATS_CLIENT = Symbol('DomainsNatsClient');

interface EmailsUsageRpc {
  [DOMAIN_USAGE_SUBJECT]: { payload: DomainUsagePayload; reply: DomainUsageReply };
}

/** Asks the emails service whether mail from a domain is still on its way; no answer in time is 503, never "not in use". */
@Injectable()
export class EmailsUsageClient {
  private readonly rpc: RpcClient<EmailsUsageRpc>;
  private readonly answerWithinMs: number;

  constructor(@Inject(DOMAINS_NATS_CLIENT) client: ClientProxy, settings: DomainSettings) {
    this.rpc = new RpcClient<EmailsUsageRpc>(client, settings.usageTimeoutMs, 'emails');
    this.answerWithinMs = settings.usageTimeoutMs;
  }

  /** When it answers 0, the emails service refuses sends from the domain from then on (it expects the deletion to go on). */
  async activeEmails(domainName: string, domainId: string): Promise<number> {
    try {
      return (await this.rpc.request(DOMAIN_USAGE_SUBJECT, { domainName, domainId, answerWithinMs: this.answerWithinMs })).activeEmails;
    } catch (error) {
      // No responders (emails is down) or an internal failure there: we cannot know, so we do not delete.
      if (error instanceof DomainError && error.code === ErrorCode.ServiceUnavailable) throw error;
      throw new DomainError(ErrorCode.ServiceUnavailable, 'The emails service could not say whether mail from this domain is in flight; nothing was deleted. Try again.');
    }
  }
}
