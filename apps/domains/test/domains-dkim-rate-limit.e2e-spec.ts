import { createSocket, Socket } from 'node:dgram';
import { connect, Socket as TcpSocket } from 'node:net';
import DNS from 'dns2';
import { eventually } from '@mailroom/testing';
import { dkimDnsRateLimited } from '../src/dkim-zone/dkim-dns-metrics';
import { TCP_CONNECTIONS_PER_CLIENT } from '../src/dkim-zone/dns-transport';
import { DKIM_ZONE, DomainsHarness, startDomainsHarness, stopDomainsHarness } from './domains-fixtures';
import { queryFor } from './udp-exchange';

const LIMIT = 5;
const BURST = 30;

/** An SOA query for the zone apex with this id; with an EDNS OPT record (RFC 6891) when `edns` is given. */
function apexQuery(id: number, edns?: { doFlag: boolean }): Buffer {
  const query = queryFor(DKIM_ZONE, DNS.Packet.TYPE.SOA, edns && { udpPayloadSize: 1232, doFlag: edns.doFlag });
  query.header.id = id;
  return query.toBuffer();
}

/** Raw SOA queries for the zone apex, ids 1..count, and every reply parsed. */
async function queryBurst(socket: Socket, server: string, count: number, edns?: { doFlag: boolean }) {
  const [host, port] = server.split(':');
  const replies: Array<InstanceType<typeof DNS.Packet>> = [];
  socket.on('message', (reply) => replies.push(DNS.Packet.parse(reply)));
  for (let id = 1; id <= count; id++) socket.send(apexQuery(id, edns), Number(port), host);
  return replies;
}

/** `count` SOA queries, ids 1..count, framed (RFC 1035 §4.2.2) on one TCP connection from `localAddress`; every reply parsed. */
async function tcpBurst(server: string, localAddress: string, count: number, timeoutMs = 10000, edns?: { doFlag: boolean }) {
  const [host, port] = server.split(':');
  const socket = connect({ host, port: Number(port), localAddress });
  const replies: Array<InstanceType<typeof DNS.Packet>> = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${replies.length} of ${count} TCP replies within ${timeoutMs} ms`)), timeoutMs);
      let buffered = Buffer.alloc(0);
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
          replies.push(DNS.Packet.parse(buffered.subarray(2, 2 + buffered.readUInt16BE(0))));
          buffered = buffered.subarray(2 + buffered.readUInt16BE(0));
        }
        if (replies.length === count) {
          clearTimeout(timer);
          resolve();
        }
      });
      socket.on('connect', () => {
        for (let id = 1; id <= count; id++) {
          const message = apexQuery(id, edns);
          const length = Buffer.alloc(2);
          length.writeUInt16BE(message.length);
          socket.write(Buffer.concat([length, message]));
        }
      });
    });
  } finally {
    socket.destroy();
  }
  return replies;
}

const bound = (address: string) =>
  new Promise<Socket>((resolve) => {
    const socket = createSocket('udp4');
    socket.bind(0, address, () => resolve(socket));
  });

describe('domains: the DKIM DNS server limits answers per UDP client network and per TCP client address', () => {
  let harness: DomainsHarness;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    harness = await startDomainsHarness({ DKIM_DNS_RATE_LIMIT: String(LIMIT) }, ['domains']);
  }, 60000);
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await stopDomainsHarness(harness);
  });

  it('answers a burst up to the limit, then sends every second query a truncated answer and drops the rest; TCP and other networks still get answers', async () => {
    const flooding = await bound('127.0.0.1');
    sockets.push(flooding);
    const replies = await queryBurst(flooding, harness.dkimDns, BURST);
    const full = () => replies.filter((reply) => !reply.header.tc);
    const truncated = () => replies.filter((reply) => reply.header.tc);
    // The domains app counts what it held back (it runs in this process, so its registry is this one).
    const limitedAs = async (verdict: string) => (await dkimDnsRateLimited.get()).values.find((value) => value.labels.verdict === verdict)?.value ?? 0;
    // Every query is accounted for once: answered, answered truncated, or counted as dropped.
    await eventually(async () => (await limitedAs('slip')) === truncated().length && full().length + truncated().length + (await limitedAs('drop')) === BURST, 5000);
    // Of the 25 over the limit, 13 slip (the 1st, 3rd, … excess query) and 12 are dropped; a few more may be answered as tokens refill.
    expect(full().length).toBeGreaterThanOrEqual(LIMIT);
    expect(truncated().length).toBeGreaterThanOrEqual(12);

    for (const reply of full()) expect(reply.answers[0]).toMatchObject({ type: DNS.Packet.TYPE.SOA });
    expect(full().length).toBeLessThanOrEqual(LIMIT + 2);
    for (const reply of truncated()) {
      expect(reply.answers).toEqual([]);
      expect(reply.questions[0]).toMatchObject({ name: DKIM_ZONE, type: DNS.Packet.TYPE.SOA });
    }
    // Every reply answers one of the queries, once.
    const ids = replies.map((reply) => reply.header.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => id >= 1 && id <= BURST)).toBe(true);

    // A resolver told to retry over TCP gets its answer: TCP has an allowance of its own.
    const [host, port] = harness.dkimDns.split(':');
    const overTcp = await DNS.TCPClient({ dns: host, port: Number(port) })(DKIM_ZONE, 'SOA');
    expect(overTcp.header.tc).toBe(0);
    expect(overTcp.answers[0]).toMatchObject({ type: DNS.Packet.TYPE.SOA });

    // Loopback is all of 127/8: a source in another /24 is another client, with its own allowance.
    const other = await bound('127.0.1.1');
    sockets.push(other);
    const otherReplies = await queryBurst(other, harness.dkimDns, 1);
    await eventually(() => otherReplies.length === 1, 5000);
    expect(otherReplies[0].header.tc).toBe(0);
    expect(otherReplies[0].answers[0]).toMatchObject({ type: DNS.Packet.TYPE.SOA });
  });

  it('limits TCP answers per client address too: past the rate a query is REFUSED without a lookup, and another address keeps its allowance', async () => {
    const refusedBefore = (await dkimDnsRateLimited.get()).values.find((value) => value.labels.verdict === 'refused')?.value ?? 0;
    const replies = await tcpBurst(harness.dkimDns, '127.0.0.3', BURST);
    const answered = replies.filter((reply) => reply.header.rcode === 0);
    const refused = replies.filter((reply) => reply.header.rcode === 5);
    expect(answered.length + refused.length).toBe(BURST);
    expect(answered.length).toBeGreaterThanOrEqual(LIMIT);
    expect(answered.length).toBeLessThanOrEqual(LIMIT + 2);
    for (const reply of answered) expect(reply.answers[0]).toMatchObject({ type: DNS.Packet.TYPE.SOA });
    for (const reply of refused) expect(reply.answers).toEqual([]);
    expect(new Set(replies.map((reply) => reply.header.id)).size).toBe(BURST);
    const refusedAfter = (await dkimDnsRateLimited.get()).values.find((value) => value.labels.verdict === 'refused')?.value ?? 0;
    expect(refusedAfter - refusedBefore).toBe(refused.length);

    // TCP sources cannot be spoofed, so the limit is per address: a neighbour in the same /24 is not held back.
    const neighbour = await tcpBurst(harness.dkimDns, '127.0.0.4', 1);
    expect(neighbour[0].header.rcode).toBe(0);
    expect(neighbour[0].answers[0]).toMatchObject({ type: DNS.Packet.TYPE.SOA });
  });

  it('puts an OPT record, with the DO bit copied, in the truncated and REFUSED answers to EDNS queries past the limit, as in every answer to one (RFC 6891 §6.1.1)', async () => {
    const optsOf = (reply: InstanceType<typeof DNS.Packet>) => reply.additionals.filter((record) => record.type === DNS.Packet.TYPE.EDNS) as unknown as Array<{ doFlag: boolean; version: number }>;
    // A network of its own (127.0.2.0/24), so its allowance is untouched by the other tests.
    const flooding = await bound('127.0.2.1');
    sockets.push(flooding);
    const replies = await queryBurst(flooding, harness.dkimDns, BURST, { doFlag: true });
    const truncated = () => replies.filter((reply) => reply.header.tc);
    await eventually(() => truncated().length >= 12, 5000);
    // Without it a resolver takes the server for one that does not speak EDNS, and asks it without EDNS for a while.
    for (const reply of replies) expect(optsOf(reply)).toMatchObject([{ doFlag: true, version: 0 }]);
    for (const reply of truncated()) expect(reply.questions[0]).toMatchObject({ name: DKIM_ZONE, type: DNS.Packet.TYPE.SOA });

    const overTcp = await tcpBurst(harness.dkimDns, '127.0.0.7', BURST, 10000, { doFlag: false });
    const refused = overTcp.filter((reply) => reply.header.rcode === 5);
    expect(refused.length).toBeGreaterThan(0);
    for (const reply of overTcp) expect(optsOf(reply)).toMatchObject([{ doFlag: false, version: 0 }]);
    for (const reply of refused) expect(reply.questions[0]).toMatchObject({ name: DKIM_ZONE, type: DNS.Packet.TYPE.SOA });
  });

  it('keeps a few TCP connections per client open, so one client holding a thousand idle ones turns no other client away', async () => {
    const [host, port] = harness.dkimDns.split(':');
    const hog: TcpSocket[] = [];
    let closedByServer = 0;
    try {
      // As many as the server holds in all: without a limit per client, the next connection from anyone is dropped.
      await Promise.all(
        Array.from({ length: 1000 }, () => {
          const socket = connect({ host, port: Number(port), localAddress: '127.0.0.5' });
          hog.push(socket);
          socket.on('error', () => undefined);
          socket.once('close', () => (closedByServer += 1));
          return new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        }),
      );
      const answer = await tcpBurst(harness.dkimDns, '127.0.0.6', 1);
      expect(answer[0].header.rcode).toBe(0);
      expect(answer[0].answers[0]).toMatchObject({ type: DNS.Packet.TYPE.SOA });
      await eventually(() => closedByServer >= 1000 - TCP_CONNECTIONS_PER_CLIENT, 10000);
    } finally {
      for (const socket of hog) socket.destroy();
    }
  });
});
