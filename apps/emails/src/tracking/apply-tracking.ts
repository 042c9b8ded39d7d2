import type { TrackingTokens } from '@mailroom/auth';
import type { SenderIdentity } from '@mailroom/contracts';
import { rewriteHtmlForTracking } from './rewrite-html';

export interface TrackableEmail {
  id: string;
  html: string | null;
  headers: Record<string, string>;
  /** Per-email overrides; null follows the domain's switches. */
  trackOpens: boolean | null;
  trackClicks: boolean | null;
}

/** The first https URL of a List-Unsubscribe header (RFC 2369), which must never be rewritten. */
function unsubscribeUrlOf(headers: Record<string, string>): string | undefined {
  const value = Object.entries(headers).find(([name]) => name.toLowerCase() === 'list-unsubscribe')?.[1];
  return value ? /<(https?:\/\/[^>]+)>/i.exec(value)?.[1] : undefined;
}

/** The html as sent: the domain's tracking switches, overridden per email, applied under its tracking host. */
export function applyTracking<E extends TrackableEmail>(email: E, identity: SenderIdentity, tokens: TrackingTokens): E {
  if (!email.html) return email;
  const opens = email.trackOpens ?? identity.openTracking;
  const clicks = email.trackClicks ?? identity.clickTracking;
  if (!opens && !clicks) return email;
  const html = rewriteHtmlForTracking(email.html, {
    emailId: email.id,
    trackingBaseUrl: identity.trackingBaseUrl,
    opens,
    clicks,
    tokens,
    unsubscribeUrl: unsubscribeUrlOf(email.headers),
  });
  return Object.assign({}, email, { html });
}
