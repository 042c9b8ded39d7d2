import * as dgram from 'node:dgram';
import * as net from 'node:net';
import DNS from 'dns2';
import { isAtOrUnder } from '@mailroom/contracts';
import { bindUdpAndTcp } from '@mailroom/runtime';
import { randomStablePort } from './free-port';

const { Packet } = DNS;
/** RFC 1035 §4.1.1 response codes (dns2 has them at runtime but not in its types). */
const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3 } as const;

export type TestDnsType = 'A' | 'AAAA' | 'CNAME' | 'MX' | 'NS' | 'TXT';
export interface TestMx {
  exchange: string;
  priority: number;
}
/** TXT: one string per record (split into 255-byte character-strings on the wire). MX: exchange + priority. */
export type TestDnsValue = string | string[] | TestMx[];

export interface TestDnsQuery {
  name: string;
  type: string;
}

export interface TestDns {
  /** '127.0.0.1:<port>', the same port for UDP and TCP; ready for DNS_SERVERS or Resolver.setServers. */
  address: string;
  host: string;
  port: number;
  /** Replaces the records of one type at a name. */
  set(name: string, type: 'MX', value: TestMx[]): void;
  set(name: string, type: Exclude<TestDnsType, 'MX'>, value: string | string[]): void;
  /** Answers for the name arrive `ms` later (Infinity: never), to simulate a slow or dead server. */
  delay(name: string, ms: number): void;
  /** Every query for the name (of `type` alone, when given) is answered SERVFAIL. */
  servfail(name: string, type?: TestDnsType): void;
  /** Records of the name are served with this TTL instead of 0 (which tells resolvers not to cache). */
  ttl(name: string, seconds: number): void;
  /** Removes records, delays and failures of one name (every name when called without one). */
  clear(name?: string): void;
  /** Names under `zone` are answered by the DNS server at `address` ('host:port'), also when a CNAME points there. */
  forward(zone: string, address: string): void;
  /** Every question received, oldest first. */
  readonly queries: TestDnsQuery[];
  stop(): Promise<void>;
}

type Resource = InstanceType<typeof Packet.Resource> | Record<string, unknown>;
type Send = (response: InstanceType<typeof Packet>) => Promise<unknown>;

const TTL = 0; // by default resolvers must not cache: tests change records between lookups
const MAX_CNAME_CHAIN = 8;
const ZONE_SOA = { primary: 'ns.test-dns.invalid', admin: 'hostmaster.test-dns.invalid', serial: 1, refresh: 60, retry: 60, expiration: 60, minimum: TTL };

const normalize = (name: string) => name.trim().toLowerCase().replace(/\.+$/, '');

/** RFC 1035 §3.3.14: a TXT character-string holds at most 255 octets; longer text is several strings. */
export function splitTxtValue(text: string): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return [bytes];
  const parts: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += 255) parts.push(bytes.subarray(offset, offset + 255));
  return parts;
}

function typeName(code: number): string {
  const entry = Object.entries(Packet.TYPE).find(([, value]) => value === code);
  return entry ? entry[0] : String(code);
}

/**
 * A real authoritative DNS server on 127.0.0.1 (UDP and TCP on one random
 * port) for e2e tests: fill it with records, then point the code under test at
 * `address`. CNAMEs are chased within its own data and through forwarded zones,
 * as a recursive resolver would.
 */
export async function startTestDns(): Promise<TestDns> {
  const records = new Map<string, Map<TestDnsType, TestDnsValue>>();
  const delays = new Map<string, number>();
  const failing = new Set<string>();
  const ttls = new Map<string, number>();
  const forwards = new Map<string, string>();
  const timers = new Set<NodeJS.Timeout>();
  const queries: TestDnsQuery[] = [];

  const toResources = (name: string, type: TestDnsType, value: TestDnsValue): Resource[] => {
    const base = { name, class: Packet.CLASS.IN, ttl: ttls.get(name) ?? TTL, type: Packet.TYPE[type] };
    const values = (Array.isArray(value) ? value : [value]) as Array<string | TestMx>;
    return values.map((item) => {
      if (type === 'MX') return { ...base, ...(item as TestMx) };
      const text = item as string;
      if (type === 'TXT') return { ...base, data: splitTxtValue(text) };
      if (type === 'A' || type === 'AAAA') return { ...base, address: text };
      if (type === 'NS') return { ...base, ns: text };
      return { ...base, domain: text };
    });
  };

  const forwardTarget = (name: string) => {
    for (const [zone, address] of forwards) if (isAtOrUnder(name, zone)) return address;
    return undefined;
  };

  const askUpstream = async (address: string, name: string, type: string) => {
    const [host, port] = address.split(':');
    const client = DNS.TCPClient({ dns: host, port: Number(port) });
    return client(name, type, Packet.CLASS.IN, { recursive: false });
  };

  /** Answers for (name, type): own records, CNAME chase, or the forwarded zone's answer. */
  const answer = async (question: { name: string; type: number }) => {
    const answers: Resource[] = [];
    let name = normalize(question.name);
    const wanted = typeName(question.type);
    for (let hop = 0; hop < MAX_CNAME_CHAIN; hop++) {
      const upstream = forwardTarget(name);
      if (upstream) {
        const reply = await askUpstream(upstream, name, wanted);
        return { rcode: reply.header.rcode, answers: [...answers, ...reply.answers] };
      }
      const byType = records.get(name);
      if (!byType) return { rcode: answers.length ? RCODE.NOERROR : RCODE.NXDOMAIN, answers };
      const exact = byType.get(wanted as TestDnsType);
      if (exact !== undefined) return { rcode: RCODE.NOERROR, answers: [...answers, ...toResources(name, wanted as TestDnsType, exact)] };
      const alias = byType.get('CNAME');
      if (alias === undefined || wanted === 'CNAME') return { rcode: RCODE.NOERROR, answers };
      answers.push(...toResources(name, 'CNAME', alias));
      name = normalize(alias as string);
    }
    return { rcode: RCODE.SERVFAIL, answers: [] };
  };

  const respond = async (request: InstanceType<typeof Packet>, send: Send) => {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    const question = request.questions[0];
    if (!question) {
      response.header.rcode = RCODE.FORMERR;
      return send(response);
    }
    const name = normalize(question.name);
    queries.push({ name, type: typeName(question.type) });
    if (failing.has(name) || failing.has(`${name}/${typeName(question.type)}`)) {
      response.header.rcode = RCODE.SERVFAIL;
      response.header.aa = 0;
      return send(response);
    }
    try {
      const result = await answer(question);
      response.header.rcode = result.rcode;
      response.answers = result.answers as typeof response.answers;
      if (result.answers.length === 0) {
        // RFC 2308: negative answers carry the SOA so resolvers can cache them briefly.
        response.authorities = [{ name: 'test-dns.invalid', type: Packet.TYPE.SOA, class: Packet.CLASS.IN, ttl: TTL, ...ZONE_SOA }] as typeof response.authorities;
      }
    } catch {
      response.header.rcode = RCODE.SERVFAIL;
      response.answers = [];
    }
    return send(response);
  };

  const handle = (request: InstanceType<typeof Packet>, send: Send) => {
    const name = normalize(request.questions[0]?.name ?? '');
    const wait = delays.get(name);
    if (wait === undefined) return void respond(request, send).catch(() => undefined);
    queries.push({ name, type: typeName(request.questions[0]?.type ?? 0) });
    if (!Number.isFinite(wait)) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void respond(request, send).catch(() => undefined);
    }, wait);
    timers.add(timer);
  };

  const { udp, tcp, port } = await listenOnOnePort(handle);
  const connections = new Set<net.Socket>();
  tcp.on('connection', (socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });

  return {
    address: `127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    set(name: string, type: TestDnsType, value: TestDnsValue) {
      const key = normalize(name);
      if (!records.has(key)) records.set(key, new Map());
      records.get(key)!.set(type, value);
    },
    delay: (name, ms) => void delays.set(normalize(name), ms),
    servfail: (name, type) => void failing.add(type ? `${normalize(name)}/${type}` : normalize(name)),
    ttl: (name, seconds) => void ttls.set(normalize(name), seconds),
    clear(name?: string) {
      if (name === undefined) {
        records.clear();
        delays.clear();
        failing.clear();
        ttls.clear();
        return;
      }
      const key = normalize(name);
      records.delete(key);
      delays.delete(key);
      for (const failure of [...failing]) if (failure === key || failure.startsWith(`${key}/`)) failing.delete(failure);
      ttls.delete(key);
    },
    forward: (zone, address) => void forwards.set(normalize(zone), address),
    queries,
    stop: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      await new Promise<void>((resolve) => {
        tcp.close(() => resolve());
        for (const socket of connections) socket.destroy();
      });
    },
  } as TestDns;
}

/** A DNS server that is down: it takes queries on a loopback UDP port and never answers one. */
export interface SilentDns {
  /** '127.0.0.1:<port>', for DNS_SERVERS or Resolver.setServers. */
  address: string;
  /** How many queries it has swallowed. */
  readonly received: number;
  stop(): Promise<void>;
}

/**
 * A dead resolver, as a query to it looks from the client: the packet goes out and no reply, not even an ICMP
 * port unreachable, comes back (a closed port would answer that, and c-ares would move on at once).
 */
export async function startSilentDns(): Promise<SilentDns> {
  const udp = dgram.createSocket('udp4');
  let received = 0;
  udp.on('message', () => void received++);
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(0, '127.0.0.1', () => resolve());
  });
  return {
    address: `127.0.0.1:${udp.address().port}`,
    get received() {
      return received;
    },
    stop: () => new Promise<void>((resolve) => udp.close(() => resolve())),
  };
}

type UdpServer = dgram.Socket;

/** UDP on a random loopback port and TCP on the same one (another UDP socket is tried while TCP finds the port taken). */
async function listenOnOnePort(handle: (request: InstanceType<typeof Packet>, send: Send) => void): Promise<{ udp: UdpServer; tcp: net.Server; port: number }> {
  const tcp = DNS.createTCPServer(handle as never) as unknown as net.Server;
  tcp.on('requestError', () => undefined);
  const newUdp = () => {
    const udp = DNS.createUDPServer(handle as never) as unknown as UdpServer;
    udp.on('requestError', () => undefined);
    return udp;
  };
  const udp = await bindUdpAndTcp('127.0.0.1', 0, newUdp, tcp, () => undefined);
  tcp.on('error', () => undefined);
  return { udp, tcp, port: udp.address().port };
}

/**
 * A loopback port free for both UDP and TCP right now, for a server the code
 * under test starts itself (DKIM_DNS_BIND, an app process's PORT or
 * HEALTH_PORT). Released before it is returned, and bound seconds later (after
 * migrations, a process boot, or a restart of that process), so it is taken
 * below the ephemeral range, as freePort's are: a port the kernel hands out for
 * port 0 can meanwhile become the local port of any outgoing connection or DNS
 * query on the machine, and the server then fails to bind it (EADDRINUSE).
 */
export async function freeDnsPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const udp = dgram.createSocket('udp4');
    const port = randomStablePort();
    const udpFree = await new Promise<boolean>((resolve) => {
      udp.once('error', () => resolve(false));
      udp.bind(port, '127.0.0.1', () => resolve(true));
    });
    if (!udpFree) {
      udp.close();
      continue;
    }
    const tcp = net.createServer();
    const free = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (free) await new Promise<void>((resolve) => tcp.close(() => resolve()));
    if (free) return port;
  }
  throw new Error('no free loopback port for UDP and TCP');
}
