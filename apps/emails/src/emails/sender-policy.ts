import { Injectable } from '@nestjs/common';
import type { RequestContext } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import { SenderIdentityClient } from './sender-identity.client';

export interface FromDomain {
  domain: string;
  /** The request field to name in an error, e.g. `from` or `emails[3].from`. */
  field: string;
}

/**
 * Who may send from which domain. A key's domainRestrictions allow exactly
 * the listed domains (403 naming the field, so a refused batch says which of
 * its emails is outside them). In live mode the domain must be verified with
 * the domains service (422 naming the field); test mode needs no domain.
 * The answer names the domain of each live from domain by its id, which the
 * write checks against deletions that crossed the send (SendingDomainFence).
 */
@Injectable()
export class SenderPolicy {
  constructor(private readonly identities: SenderIdentityClient) {}

  async assertMaySendFrom(ctx: RequestContext, fromDomains: FromDomain[]): Promise<Map<string, string>> {
    for (const { domain, field } of fromDomains) {
      if (ctx.domainRestrictions.length && !ctx.domainRestrictions.includes(domain)) {
        throw DomainError.forbidden(
          `${field}: this API key may only send from ${ctx.domainRestrictions.join(', ')}; '${domain}' is not one of them.`,
        );
      }
    }
    const domainIds = new Map<string, string>();
    if (ctx.mode !== 'live') return domainIds;
    const domains = [...new Set(fromDomains.map((item) => item.domain))];
    const found = new Map(await Promise.all(domains.map(async (domain) => [domain, await this.identities.find(domain)] as const)));
    for (const { domain, field } of fromDomains) {
      const sending = found.get(domain);
      const status = sending?.status;
      if (!sending || status !== 'verified') {
        throw DomainError.validation(
          field,
          status
            ? `the domain '${domain}' is not verified yet (status ${status}); verify it with POST /v1/domains/{id}/verify before sending live`
            : `the domain '${domain}' is not a sending domain of this account; add and verify it with POST /v1/domains before sending live`,
        );
      }
      domainIds.set(domain, sending.domainId);
    }
    return domainIds;
  }
}
