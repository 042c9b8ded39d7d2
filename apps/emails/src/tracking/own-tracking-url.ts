import type { TrackingClaim, TrackingTokens } from '@mailroom/auth';

/**
 * The tracking URLs the rewriter writes, under the gateway's /t routes, and
 * the claim of one found in html: one place for their shape, so the URLs
 * written and the ones recognised as ours cannot drift apart.
 */
export const clickTrackingUrl = (base: string, token: string) => `${base}/t/c/${token}`;
export const openPixelUrl = (base: string, token: string) => `${base}/t/o/${token}.gif`;

/** The shape of clickTrackingUrl's and openPixelUrl's URLs under any base. */
const TRACKING_URL = /^https?:\/\/[^/?#]+(?:\/[^?#]*)?\/t\/[co]\/([\w-]+\.[\w-]+)(?:\.gif)?$/i;

/**
 * The claim of a URL that is already one of Mailroom's tracking URLs, under
 * any of its tracking hosts: its token verifies with our key. A lookalike
 * path under someone else's host, or with a token we did not sign, is null.
 */
export function ownTrackingClaim(url: string, tokens: TrackingTokens): TrackingClaim | null {
  const token = TRACKING_URL.exec(url)?.[1];
  return token ? tokens.verify(token) : null;
}
