import { isIP } from 'node:net';
import { domainNameProblem, isPublicSuffix, normalizeDomainName } from '@mailroom/contracts';
import type { DomainTracking, DomainUpdateInput, TrackingDomainStatus } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import type { RecordOutcome } from '../verification/verification-rules';

/** The columns of a domain row this feature reads and writes. */
export interface TrackingColumns {
  openTracking: boolean;
  clickTracking: boolean;
  trackingDomain: string | null;
  trackingDomainStatus: TrackingDomainStatus | null;
  nextCheckAt: Date | null;
}

/** What the API shows: the custom domain when set, else the default host, which is always verified (it is ours). */
export function trackingOf(domain: Pick<TrackingColumns, 'trackingDomain' | 'trackingDomainStatus'>, defaultHost: string): DomainTracking {
  if (!domain.trackingDomain) return { trackingDomain: defaultHost, trackingDomainStatus: 'verified' };
  return { trackingDomain: domain.trackingDomain, trackingDomainStatus: domain.trackingDomainStatus ?? 'pending' };
}

/**
 * The base URL of the pixel and rewritten links: TRACKING_BASE_URL with its
 * host swapped for the custom tracking domain, but only while that domain's
 * CNAME is verified. Scheme, port and path prefix stay those of
 * TRACKING_BASE_URL, because the CNAME leads to the same gateway.
 */
export function trackingBaseUrlFor(domain: Pick<TrackingColumns, 'trackingDomain' | 'trackingDomainStatus'>, defaultBaseUrl: string): string {
  if (!domain.trackingDomain || domain.trackingDomainStatus !== 'verified') return defaultBaseUrl;
  const url = new URL(defaultBaseUrl);
  url.hostname = domain.trackingDomain;
  return url.toString().replace(/\/+$/, '');
}

/**
 * The custom tracking domain's own small state machine, apart from the
 * domain's status: the CNAME found → verified; missing or wrong → a verified
 * one becomes failed, a pending one stays pending; a DNS failure changes nothing.
 */
export function nextTrackingDomainStatus(current: TrackingDomainStatus, outcome: RecordOutcome): TrackingDomainStatus {
  if (outcome.result === 'error') return current;
  if (outcome.result === 'pass') return 'verified';
  return current === 'verified' ? 'failed' : current;
}

/**
 * Whether a requested tracking domain names the default host, written as
 * `new URL(TRACKING_BASE_URL).hostname` writes it: lower-case punycode, an
 * IPv4 address in dotted decimal, an IPv6 one compressed and in brackets
 * (which the request may leave out).
 */
export function isDefaultHost(requested: string, defaultHost: string): boolean {
  const unbracketed = /^\[.*\]$/.test(requested) && isIP(requested.slice(1, -1)) === 6 ? requested.slice(1, -1) : requested;
  const canonical = isIP(unbracketed) === 6 ? new URL(`http://[${unbracketed}]/`).hostname : normalizeDomainName(unbracketed);
  return canonical !== '' && canonical === defaultHost;
}

/**
 * What a PATCH's trackingDomain asks for: null for the default host (null, or
 * the default host itself, whatever it is: `localhost` or an IP address in
 * development), else the custom domain in its stored form; a 422 for anything
 * else. Judged here rather than at the gateway, because only this service
 * reads TRACKING_BASE_URL; the gateway checks that it is a string or null.
 */
export function requestedTrackingDomain(requested: unknown, defaultHost: string): string | null {
  if (requested === null) return null;
  if (typeof requested !== 'string') throw DomainError.validation('trackingDomain', 'must be a string');
  if (isDefaultHost(requested, defaultHost)) return null;
  const problem = domainNameProblem(requested);
  if (problem) throw DomainError.validation('trackingDomain', problem);
  const name = normalizeDomainName(requested);
  // Nobody publishes records at co.uk, so its CNAME could never verify.
  if (isPublicSuffix(name)) throw DomainError.validation('trackingDomain', `must be a host under a domain you own: ${name} is a public suffix`);
  return name;
}

/**
 * Refuses the sending domain's own name as its tracking domain (a stored
 * name, from requestedTrackingDomain). That CNAME could never verify, nor be
 * published: a CNAME stands alone at its name (RFC 1034 §3.6.2), and the
 * domain's SPF record lives there, and a zone apex's SOA and NS too.
 */
export function assertTrackingDomainApart(trackingDomain: string | null | undefined, domainName: string): void {
  if (trackingDomain !== domainName) return;
  throw DomainError.validation('trackingDomain', `must be a host under ${domainName}, such as links.${domainName}, not the domain itself: a CNAME there cannot stand beside its SPF record`);
}

/**
 * Applies a PATCH to a domain row (already validated, and its trackingDomain
 * read by requestedTrackingDomain). A new tracking domain starts pending and
 * pulls the next background check forward to `firstCheckAt`; null goes back to
 * the default. Setting the same tracking domain again keeps its status.
 */
export function applyDomainUpdate(domain: TrackingColumns, input: DomainUpdateInput, firstCheckAt: Date): void {
  if (input.openTracking !== undefined) domain.openTracking = input.openTracking;
  if (input.clickTracking !== undefined) domain.clickTracking = input.clickTracking;
  if (input.trackingDomain === undefined) return;
  const custom = input.trackingDomain;
  if (custom === domain.trackingDomain) return;
  domain.trackingDomain = custom;
  domain.trackingDomainStatus = custom ? 'pending' : null;
  // A domain no longer checked in the background (nextCheckAt null: a failed one) is checked by POST verify.
  if (custom && domain.nextCheckAt && domain.nextCheckAt > firstCheckAt) domain.nextCheckAt = firstCheckAt;
}
