import DNS from 'dns2';

const { Packet } = DNS;
type Message = InstanceType<typeof Packet>;

/** RFC 1035 §4.2.1: the UDP size every client takes, with or without EDNS. */
export const PLAIN_UDP_LIMIT = 512;
/**
 * The largest UDP answer this server sends whatever a client offers: 1232
 * bytes fits an IPv6 packet on any path unfragmented (DNS Flag Day 2020), and
 * a key's answer is about 500.
 */
export const EDNS_UDP_LIMIT = 1232;
/** RFC 6891 §9: the only EDNS version there is. */
const EDNS_VERSION = 0;

export interface EdnsQuery {
  udpPayloadSize: number;
  version: number;
  /** DNSSEC OK (RFC 3225). */
  doFlag: boolean;
}

/** The query's OPT record (RFC 6891 §6.1.2: its CLASS is the UDP payload size), or null when it has none. */
export function ednsOf(request: Message): EdnsQuery | null {
  const opt = request.additionals.find((record) => record.type === Packet.TYPE.EDNS) as { class?: number; version?: number; doFlag?: boolean } | undefined;
  return opt ? { udpPayloadSize: opt.class ?? PLAIN_UDP_LIMIT, version: opt.version ?? 0, doFlag: opt.doFlag === true } : null;
}

/** True for a version this server does not speak; the answer is then BADVERS (RFC 6891 §6.1.3). */
export function isUnsupportedVersion(edns: EdnsQuery): boolean {
  return edns.version !== EDNS_VERSION;
}

/**
 * The OPT record of an answer to `query`. RFC 6891 §6.1.1: a responder that
 * gets an OPT record MUST send one back; without it a resolver takes the
 * server for one that does not speak EDNS. RFC 3225 §3: the query's DO bit
 * MUST be copied into it, signed zone or not.
 */
export function optRecord(query: EdnsQuery): Message['additionals'][number] {
  // dns2's type declarations lag its runtime, whose EDNS() takes options; a root name, version 0, no options.
  const opt = (Packet.Resource.EDNS as unknown as (rdata: unknown[], options: object) => object)([], { udpPayloadSize: EDNS_UDP_LIMIT, doFlag: query.doFlag });
  return Object.assign({ name: '' }, opt) as unknown as Message['additionals'][number];
}

/** How large a UDP answer to this query may be (RFC 6891 §6.2.3, §6.2.5). */
export function udpLimitFor(edns: EdnsQuery | null): number {
  return edns ? Math.min(EDNS_UDP_LIMIT, Math.max(PLAIN_UDP_LIMIT, edns.udpPayloadSize)) : PLAIN_UDP_LIMIT;
}
