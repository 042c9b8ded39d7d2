import { Logger } from '@nestjs/common';
import { stsPolicyFetches } from './mta-sts-metrics';
import { StsPolicyStore } from './mta-sts.repository';
import { PolicyFetch } from './policy-fetch';
import { StsAnnouncement } from './sts-discovery';
import { parseStsPolicy, StsPolicy } from './sts-policy';

/** Something that says which MTA-STS policy applies to mail for a domain now: null for none. */
export interface StsPolicySource {
  policyFor(domain: string): Promise<StsPolicy | null>;
}

/** The network side of a policy: its `_mta-sts` TXT record, and the policy file. */
export interface StsLookups {
  discover(domain: string): Promise<StsAnnouncement>;
  fetch(domain: string): Promise<PolicyFetch>;
}

/**
 * How long an answer is reused in memory before the TXT record and the cache are asked again: the MX route's
 * longest reuse (MxRouteCache), so a delivery to a busy domain costs one TXT query and one row read every few
 * minutes, and a domain's new policy id is seen this late at most.
 */
const REMEMBER_MS = 5 * 60_000;
/** Domains remembered at once; past it the oldest entry goes. */
const MAX_DOMAINS = 10_000;

/**
 * The MTA-STS policy of a recipient domain (RFC 8461 §5.1): the cached one while the `_mta-sts` record announces
 * the id it was fetched under, a fresh one fetched (and cached for its max_age) when the id changed, and the cached
 * one still when the record is gone, its lookup failed, or the fetch failed or gave no valid policy: an attacker
 * who strips the record or blocks the policy host cannot downgrade a domain whose policy is cached. With nothing
 * cached, those give no policy, and mail goes as it would without MTA-STS (RFC 8461 §5: trust on first use).
 * Lookups of one domain that run at the same time share one.
 */
export class StsPolicies implements StsPolicySource {
  private readonly logger = new Logger('MtaSts');
  private readonly known = new Map<string, { policy: StsPolicy | null; until: number }>();
  private readonly pending = new Map<string, Promise<StsPolicy | null>>();

  constructor(
    private readonly store: StsPolicyStore,
    private readonly lookups: StsLookups,
    private readonly now: () => number = Date.now,
  ) {}

  policyFor(domain: string): Promise<StsPolicy | null> {
    const known = this.known.get(domain);
    if (known && known.until > this.now()) return Promise.resolve(known.policy);
    this.known.delete(domain);
    let pending = this.pending.get(domain);
    if (!pending) {
      pending = this.look(domain).finally(() => this.pending.delete(domain));
      void pending.then((policy) => this.remember(domain, policy), () => undefined);
      this.pending.set(domain, pending);
    }
    return pending;
  }

  private async look(domain: string): Promise<StsPolicy | null> {
    const [announcement, cached] = await Promise.all([this.lookups.discover(domain), this.store.find(domain)]);
    if (announcement.kind === 'failed') this.logger.debug(`_mta-sts.${domain} lookup failed (${announcement.reason}); ${cached ? 'the cached policy applies' : 'no policy cached'}`);
    if (announcement.kind !== 'policy' || announcement.id === cached?.policyId) return cached;
    const fetched = await this.lookups.fetch(domain);
    const policy = fetched.ok ? parseStsPolicy(fetched.text) : null;
    stsPolicyFetches.labels(!fetched.ok ? 'failed' : policy ? 'fetched' : 'invalid').inc();
    if (!policy) {
      const why = fetched.ok ? 'it is no valid policy' : fetched.reason;
      this.logger.warn(`MTA-STS policy of ${domain} (id ${announcement.id}) not fetched: ${why}; ${cached ? 'the cached policy applies' : 'delivering without one'}`);
      return cached;
    }
    await this.store.save(domain, Object.assign({ policyId: announcement.id }, policy));
    return policy;
  }

  private remember(domain: string, policy: StsPolicy | null): void {
    if (this.known.size >= MAX_DOMAINS) this.known.delete(this.known.keys().next().value as string);
    const lifeMs = Math.min(REMEMBER_MS, policy ? policy.maxAgeSeconds * 1000 : REMEMBER_MS);
    this.known.set(domain, { policy, until: this.now() + lifeMs });
  }
}
