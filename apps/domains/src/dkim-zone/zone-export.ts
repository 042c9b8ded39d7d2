import { DomainKeyRow } from '../domains/domains.repository';
import { dkimTargetLabel } from '../domains/dns-records';
import { buildZoneFile, zoneSerial } from './zone-file';

/** The zone file for every domain's key; shared by the NATS handler and the CLI (`domains zone-export`). */
export function exportDkimZone(zone: string, nameServers: string[], keys: DomainKeyRow[], now = new Date()): string {
  return buildZoneFile(
    { zone, nameServers, serial: zoneSerial(now), ttl: 300 },
    keys.map((key) => ({ label: dkimTargetLabel(key), publicKeyBase64: key.dkimPublicKey, comment: `${key.name} (${key.id}), CNAME ${key.dkimSelector}._domainkey.${key.name}` })),
  );
}
