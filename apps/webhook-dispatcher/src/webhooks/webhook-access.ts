import type { RequestContext } from '@mailroom/contracts';

/**
 * A key restricted to domains reaches only webhooks restricted within them, as
 * it manages only keys within its reach: a webhook of wider reach (or an
 * unrestricted one) would show, through its URL, secret or deliveries, events
 * of other domains, and re-pointing its URL would receive them all. Others
 * look like they do not exist.
 */
export function canReach(ctx: RequestContext, webhook: { domainRestrictions: string[] }): boolean {
  if (!ctx.domainRestrictions.length) return true;
  return webhook.domainRestrictions.length > 0 && webhook.domainRestrictions.every((domain) => ctx.domainRestrictions.includes(domain));
}
