import type { TrackingClaim, TrackingTokens } from '@mailroom/auth';

/** The shape of the URLs the rewriter writes: `<tracking base>/t/c/<token>` and `<tracking base>/t/o/<token>.gif`. */
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
