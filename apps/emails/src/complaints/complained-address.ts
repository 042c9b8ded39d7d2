import { reportedAddress } from '../reports/reported-address';

/**
 * The address an email.complained names, in its stored form: its
 * `recipient`, or the one address of `to` (an event carrying only the
 * email summary), or null when neither is an address a send would accept.
 * The complaints consumer ignores such an event, and analytics counts no
 * complaint for it.
 */
export function complainedAddress(data: Record<string, unknown>): string | null {
  const recipient = typeof data.recipient === 'string' ? data.recipient : Array.isArray(data.to) && data.to.length === 1 ? String(data.to[0]) : '';
  return reportedAddress(recipient);
}
