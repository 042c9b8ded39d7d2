import type { DnsRecord } from '@mailroom/contracts';

export interface RecordSettings {
  spfInclude: string;
  dkimZone: string;
  dmarcRua: string | null;
}

export interface DomainKeyRef {
  id: string;
  dkimSelector: string;
}

/** `mr<yyyymm>`: the month the key was made, so a rotated key gets a new selector and both can be published at once. */
export function dkimSelectorFor(date: Date): string {
  return `mr${date.getUTCFullYear()}${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

/**
 * The one label under DKIM_ZONE that holds a domain's key: `<selector>-<ulid>`
 * (the domain id without its prefix, lower-case). One label, because a
 * customer domain may be up to 253 characters long and would not fit
 * underneath the zone, and because ids never collide.
 */
export function dkimTargetLabel(domain: DomainKeyRef): string {
  return `${domain.dkimSelector}-${domain.id.replace(/^dom_/, '').toLowerCase()}`;
}

/** The inverse of dkimTargetLabel: which domain and selector a name in the zone stands for (selectors: see rotationSelector). */
export function parseDkimTargetLabel(label: string): DomainKeyRef | null {
  const match = /^(mr\d{6}|r\d{6}[0-9a-z])-([0-9a-hjkmnp-tv-z]{26})$/.exec(label.toLowerCase());
  return match ? { dkimSelector: match[1], id: `dom_${match[2].toUpperCase()}` } : null;
}

export function dkimTarget(domain: DomainKeyRef, dkimZone: string): string {
  return `${dkimTargetLabel(domain)}.${dkimZone}`;
}

export function spfValue(spfInclude: string): string {
  return `v=spf1 include:${spfInclude} ~all`;
}

/** p=none: monitor first; owners tighten it to quarantine/reject once reports look clean. */
export function dmarcValue(rua: string | null): string {
  return rua ? `v=DMARC1; p=none; rua=${rua};` : 'v=DMARC1; p=none;';
}

/** The CNAME that points a selector of the domain at its key in DKIM_ZONE: the active key's, or a pending rotation's. */
export function dkimRecord(domain: DomainKeyRef, dkimZone: string): DnsRecord & { type: 'CNAME'; purpose: 'dkim' } {
  return { type: 'CNAME', host: `${domain.dkimSelector}._domainkey`, value: dkimTarget(domain, dkimZone), purpose: 'dkim' };
}

/** The three records the owner publishes, in the order of the interface: SPF, DKIM, DMARC. */
export function expectedRecords(domain: DomainKeyRef, settings: RecordSettings): DnsRecord[] {
  return [
    { type: 'TXT', host: '@', value: spfValue(settings.spfInclude), purpose: 'spf' },
    dkimRecord(domain, settings.dkimZone),
    { type: 'TXT', host: '_dmarc', value: dmarcValue(settings.dmarcRua), purpose: 'dmarc' },
  ];
}

/** The full name a record host stands for: `@` is the domain itself. */
export function absoluteHost(host: string, domainName: string): string {
  return host === '@' ? domainName : `${host}.${domainName}`;
}
