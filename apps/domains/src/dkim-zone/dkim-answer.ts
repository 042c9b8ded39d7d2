import { isAtOrUnder } from '@mailroom/contracts';
import { dkimTxtValue, splitTxt } from './dkim-txt';
import { soaRecord } from './zone-file';

/** RFC 1035 §3.2.2 types and §4.1.1 response codes this responder speaks. */
export const TYPE = { A: 1, NS: 2, SOA: 6, TXT: 16, IXFR: 251, AXFR: 252, ANY: 255 } as const;
/** BADVERS (RFC 6891 §9) is an extended code: its high bits travel in the OPT record. */
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5, BADVERS: 16 } as const;
const CLASS_IN = 1;
/** RFC 1035 §3.2.5: QCLASS * (ANY) matches every class, so IN too. */
const QCLASS_ANY = 255;
const KEY_TTL = 300;

export interface ZoneInfo {
  zone: string;
  nameServers: string[];
  serial: number;
}

export interface DnsRecordOut {
  name: string;
  type: number;
  class: number;
  ttl: number;
  [field: string]: unknown;
}

export interface DnsAnswer {
  rcode: number;
  authoritative: boolean;
  answers: DnsRecordOut[];
  authorities: DnsRecordOut[];
}

/**
 * The authoritative answer for one question in the DKIM zone:
 * - another class than IN (or ANY, which matches IN): REFUSED, as for a name outside the zone. The zone is IN data
 *   only, and a server looks for zones of the question's class (RFC 1034 §4.3.2 step 1), so in CH or HS it has no
 *   zone and no standing to say a name does not exist; BIND (no view of that class) and NSD (CHAOS apart from its
 *   id.server) answer REFUSED too. NOTIMP would say the kind of query is not implemented, which it is;
 * - outside the zone: REFUSED (this is not a resolver);
 * - a zone transfer (AXFR, IXFR): REFUSED, as servers do for clients not allowed to transfer; the zone file export is the copy;
 * - the apex: SOA and NS;
 * - `<label>.<zone>` with a key: TXT `v=DKIM1; k=rsa; p=…` in ≤255-octet strings;
 * - a known name and another type: NODATA (NOERROR, no answers, SOA in authority);
 * - anything else: NXDOMAIN with the SOA, so resolvers cache the miss (RFC 2308).
 */
export async function answerDkimQuestion(
  question: { name: string; type: number; class: number },
  zone: ZoneInfo,
  publicKeyFor: (label: string) => Promise<string | null>,
): Promise<DnsAnswer> {
  const name = question.name.toLowerCase().replace(/\.+$/, '');
  const soa = soaRecord(zone);
  const soaRecordOut: DnsRecordOut = { name: zone.zone, type: TYPE.SOA, class: CLASS_IN, ttl: soa.minimum, ...soa };
  const negative = (rcode: number): DnsAnswer => ({ rcode, authoritative: true, answers: [], authorities: [soaRecordOut] });

  const transfer = question.type === TYPE.AXFR || question.type === TYPE.IXFR;
  const otherClass = question.class !== CLASS_IN && question.class !== QCLASS_ANY;
  if (otherClass || transfer || !isAtOrUnder(name, zone.zone)) return { rcode: RCODE.REFUSED, authoritative: false, answers: [], authorities: [] };

  if (name === zone.zone) {
    const ns = zone.nameServers.map((server) => ({ name: zone.zone, type: TYPE.NS, class: CLASS_IN, ttl: 3600, ns: server }));
    if (question.type === TYPE.SOA) return { rcode: RCODE.NOERROR, authoritative: true, answers: [soaRecordOut], authorities: [] };
    if (question.type === TYPE.NS) return { rcode: RCODE.NOERROR, authoritative: true, answers: ns, authorities: [] };
    if (question.type === TYPE.ANY) return { rcode: RCODE.NOERROR, authoritative: true, answers: [soaRecordOut, ...ns], authorities: [] };
    return negative(RCODE.NOERROR);
  }

  const label = name.slice(0, -(zone.zone.length + 1));
  const publicKey = label.includes('.') ? null : await publicKeyFor(label);
  if (!publicKey) return negative(RCODE.NXDOMAIN);
  if (question.type !== TYPE.TXT && question.type !== TYPE.ANY) return negative(RCODE.NOERROR);
  return {
    rcode: RCODE.NOERROR,
    authoritative: true,
    answers: [{ name: question.name.replace(/\.+$/, ''), type: TYPE.TXT, class: CLASS_IN, ttl: KEY_TTL, data: splitTxt(dkimTxtValue(publicKey)) }],
    authorities: [],
  };
}
