import { createSocket, Socket } from 'node:dgram';
import DNS from 'dns2';
import { eventually } from '@mailroom/testing';
import { dkimDnsRateLimited } from '../src/dkim-zone/dkim-dns-metrics';
import { DKIM_ZONE, DomainsHarness, startDomainsHarness, stopDomainsHarness } from './domains-fixtures';

const LIMIT = 5;
const BURST = 30;

/** Raw SOA queries for the zone apex, ids 1..count, and every reply parsed. */
async function queryBurst(socket: Socket, server: string, count: number) {
  const [host, port] = server.split(':');
  const replies: Array<InstanceType<typeof DNS.Packet>> = [];
  socket.on('message', (reply) => replies.push(DNS.Packet.parse(reply)));
  for (let id = 1; id <= count; id++) {
    const query = new DNS.Packet();
    query.header.id = id;
    query.questions.push({ name: DKIM_ZONE, type: DNS.Packet.TYPE.SOA, class: DNS.Packet.CLASS.IN } as never);
    socket.send(query.toBuffer(), Number(port), host);
  }
  return replies;
}

const bound = (address: string) =>
  new Promise<Socket>((resolve) => {
    const socket = createSocket('udp4');
    socket.bind(0, address, () => resolve(socket));
  });

describe('domains: the DKIM DNS server limits UDP answers per client network', () => {
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

    // A resolver told to retry over TCP gets its answer: TCP cannot be spoofed, so it is not limited.
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
});
