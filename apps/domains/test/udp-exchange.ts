import { createSocket } from 'node:dgram';
import DNS from 'dns2';

const { Packet } = DNS;
export type DnsMessage = InstanceType<typeof Packet>;

/** Sends one query packet over UDP to host:port and parses the first reply, failing after timeoutMs. */
export async function udpExchange(server: string, query: DnsMessage, timeoutMs = 3000): Promise<DnsMessage> {
  const [host, port] = server.split(':');
  const socket = createSocket('udp4');
  try {
    return await new Promise<DnsMessage>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no UDP answer from ${server} within ${timeoutMs} ms`)), timeoutMs);
      socket.once('message', (reply) => {
        clearTimeout(timer);
        resolve(Packet.parse(reply));
      });
      socket.send(query.toBuffer(), Number(port), host);
    });
  } finally {
    socket.close();
  }
}

/** A query for one name and type, with an EDNS OPT record (RFC 6891) when `edns` is given. */
export function queryFor(name: string, type: number, edns?: { udpPayloadSize: number; version?: number }): DnsMessage {
  const query = new Packet();
  query.header.id = Math.floor(Math.random() * 0xffff);
  // dns2's type declarations lag its runtime: plain objects are what its encoder reads, and EDNS takes options.
  query.questions.push({ name, type, class: Packet.CLASS.IN } as unknown as DnsMessage['questions'][number]);
  const opt = (Packet.Resource.EDNS as unknown as (rdata: unknown[], options: object) => object)([], edns ?? {});
  if (edns) query.additionals.push(Object.assign({ name: '' }, opt) as unknown as DnsMessage['additionals'][number]);
  return query;
}
