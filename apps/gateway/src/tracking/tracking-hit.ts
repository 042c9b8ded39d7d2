import { embeddedIpv4 } from '@mailroom/runtime';

/** What a tracking hit reads of its request. */
export interface HitRequest {
  ip: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * The reader an email.opened or email.clicked names: its user agent, and its address as the reader has it. A
 * gateway listening on `::` sees an IPv4 reader as `::ffff:192.0.2.7`, which no one would look up or match
 * against their own lists: such an address is given in its IPv4 form.
 */
export function trackingHit(emailId: string, request: HitRequest): { emailId: string; userAgent: string | null; ip: string | null } {
  const userAgent = request.headers['user-agent'];
  const ip = request.ip ? (embeddedIpv4(request.ip) ?? request.ip) : null;
  return { emailId, userAgent: (Array.isArray(userAgent) ? userAgent[0] : userAgent) ?? null, ip };
}
