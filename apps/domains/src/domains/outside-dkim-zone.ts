import { isAtOrUnder } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';

/**
 * Refuses a sending or tracking domain inside DKIM_ZONE: this Mailroom answers every name there itself (the DKIM keys
 * of its domains), so nobody could publish the SPF, DMARC or CNAME records such a domain needs, and it could never
 * verify. Said at once rather than left pending until DOMAIN_PENDING_TIMEOUT.
 */
export function assertOutsideDkimZone(field: 'name' | 'trackingDomain', name: string | null | undefined, dkimZone: string): void {
  if (!name || !isAtOrUnder(name, dkimZone)) return;
  throw DomainError.validation(field, `must be a domain you own: ${name} is inside ${dkimZone}, the DKIM zone this Mailroom answers itself (DKIM_ZONE), where no one else can publish records`);
}
