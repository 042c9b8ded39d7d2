import { parseEmailAddress } from '@mailroom/contracts';

/**
 * A reported recipient read as a send reads one: its stored form (lower-case
 * punycode, `Name <addr>` accepted), or null for what Mailroom could never
 * have sent to. Anything looser could never succeed either (an address too
 * long for the suppression list's index was refused by Postgres on every
 * redelivery, for ever), so the caller acknowledges such a report rather than
 * have it redelivered.
 */
export function reportedAddress(value: unknown): string | null {
  return typeof value === 'string' ? (parseEmailAddress(value)?.normalized ?? null) : null;
}
