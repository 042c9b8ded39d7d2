import { Logger } from '@nestjs/common';
import { reportedPolicy, ReportedPolicy, TlsSessionRecorder } from '../tls-rpt/tls-session';
import { stsPolicyFetches } from './mta-sts-metrics';
import { StoredStsPolicy, StsPolicyStore } from './mta-sts.repository';
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
/** The policy a failed fetch is reported under when none is cached: an MTA-STS one, of which nothing could be read. */
const UNREAD_POLICY: ReportedPolicy = { type: 'sts', string: [], mxHost: [] };
/** The longest a cached policy goes unrefreshed while its id is unchanged (see refreshDue). */
const MAX_REFRESH_INTERVAL_MS = 24 * 3600_000;

/**
 * Whether a cached policy is fetched again although the record still announces its id (RFC 8461 §5.1: refresh
 * before it expires, so a domain is not left without a policy because the one fetch at its expiry was blocked):
 * once it is older than the smaller of 24 hours and half its max_age. Half the max_age leaves the other half for
 * retries (every REMEMBER_MS while a refresh fails); 24 hours bounds how stale a long-lived policy (max_age up to a
 * year) gets, at one fetch per domain and day.
 */
export function refreshDue(cached: StoredStsPolicy, nowMs: number): boolean {
  const intervalMs = Math.min(MAX_REFRESH_INTERVAL_MS, (cached.maxAgeSeconds * 1000) / 2);
  return nowMs - cached.fetchedAt.getTime() >= intervalMs;
}

/**
 * The MTA-STS policy of a recipient domain (RFC 8461 §5.1): the cached one while the `_mta-sts` record announces
 * the id it was fetched under, a fresh one fetched (and cached for its max_age) when the id changed or the cached one
 * is due for a refresh (refreshDue; a valid one under the same id extends its life), and the cached one still when
 * the record is gone, its lookup failed, or the fetch failed or gave no valid policy: an attacker who strips the
 * record or blocks the policy host cannot downgrade a domain whose policy is cached. With nothing
 * cached, those give no policy, and mail goes as it would without MTA-STS (RFC 8461 §5: trust on first use).
 * Lookups of one domain that run at the same time share one. A fetch that gave no valid policy is told to the TLS
 * report counts (`tlsReports`) as one failed session of its RFC 8460 §4.3.2.1 result type, under the cached policy
 * (which the mail then goes under) or, with none cached, an MTA-STS policy of which nothing could be read.
 */
export class StsPolicies implements StsPolicySource {
  private readonly logger = new Logger('MtaSts');
  private readonly known = new Map<string, { policy: StsPolicy | null; until: number }>();
  private readonly pending = new Map<string, Promise<StsPolicy | null>>();

  private readonly now: () => number;
  private readonly tlsReports?: TlsSessionRecorder;

  constructor(
    private readonly store: StsPolicyStore,
    private readonly lookups: StsLookups,
    options: { now?: () => number; tlsReports?: TlsSessionRecorder } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.tlsReports = options.tlsReports;
  }

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
    // Only a record that still announces a policy sends us to the policy host, a refresh included: while it is gone
    // or its lookup failed, the cached policy applies as it is until it expires (RFC 8461 §5.1), not refreshed.
    if (announcement.kind !== 'policy') return cached;
    const refresh = announcement.id === cached?.policyId;
    if (refresh && !refreshDue(cached, this.now())) return cached;
    // A refresh runs inline, as a first fetch does: at most once per REMEMBER_MS per domain (lookups are shared and
    // remembered), and no longer than the fetch's own deadline.
    const fetched = await this.lookups.fetch(domain);
    const policy = fetched.ok ? parseStsPolicy(fetched.text) : null;
    stsPolicyFetches.labels(!fetched.ok ? 'failed' : policy ? 'fetched' : 'invalid').inc();
    if (!policy) {
      const resultType = fetched.ok ? 'sts-policy-invalid' : fetched.failure;
      this.tlsReports?.record(domain, cached ? reportedPolicy(cached) : UNREAD_POLICY, { ok: false, resultType, mxHostname: '', ip: '' });
      const why = fetched.ok ? 'it is no valid policy' : fetched.reason;
      this.logger.warn(`MTA-STS policy of ${domain} (id ${announcement.id}) not ${refresh ? 'refreshed' : 'fetched'}: ${why}; ${cached ? 'the cached policy applies' : 'delivering without one'}`);
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
