import { dkimTxtValue, splitTxt } from './dkim-txt';

export interface ZoneKey {
  /** The label under the zone, e.g. `mr202506-01jz…`. */
  label: string;
  publicKeyBase64: string;
  /** Written as a comment so an operator can tell records apart. */
  comment: string;
}

export interface ZoneSettings {
  zone: string;
  nameServers: string[];
  serial: number;
  ttl: number;
}

/** `ns.<zone>` when DKIM_ZONE_NS is unset. */
export function zoneNameServers(zone: string, configured: string[]): string[] {
  return configured.length ? configured : [`ns.${zone}`];
}

/** SOA timers (RFC 1912 §2.2 ranges): refresh 1h, retry 15m, expire 1w, negative TTL 5m. */
export function soaRecord(settings: Pick<ZoneSettings, 'zone' | 'nameServers' | 'serial'>) {
  return {
    primary: settings.nameServers[0],
    admin: `hostmaster.${settings.zone}`,
    serial: settings.serial,
    refresh: 3600,
    retry: 900,
    expiration: 604800,
    minimum: 300,
  };
}

/** A serial that only grows (RFC 1982 arithmetic aside): seconds since the epoch. */
export function zoneSerial(now: Date): number {
  return Math.floor(now.getTime() / 1000);
}

const quote = (part: string) => `"${part.replace(/["\\]/g, '\\$&')}"`;

/** The DKIM zone as an RFC 1035 §5 master file, for operators who host the zone on their own DNS servers. */
export function buildZoneFile(settings: ZoneSettings, keys: ZoneKey[]): string {
  const soa = soaRecord(settings);
  const lines = [
    `; DKIM zone exported by Mailroom. Every customer domain's <selector>._domainkey CNAME points to a name here.`,
    `$ORIGIN ${settings.zone}.`,
    `$TTL ${settings.ttl}`,
    `@\tIN\tSOA\t${soa.primary}. ${soa.admin}. ( ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expiration} ${soa.minimum} )`,
    ...settings.nameServers.map((ns) => `@\tIN\tNS\t${ns}.`),
  ];
  for (const key of keys) {
    lines.push(`; ${key.comment}`);
    lines.push(`${key.label}\tIN\tTXT\t( ${splitTxt(dkimTxtValue(key.publicKeyBase64)).map(quote).join(' ')} )`);
  }
  return `${lines.join('\n')}\n`;
}
