import { createSocket } from 'node:dgram';
import DNS from 'dns2';

const { Packet } = DNS;
export type DnsMessage = InstanceType<typeof Packet>;

/** Sends raw bytes over UDP to host:port and returns the first reply as bytes, failing after timeoutMs. */
export async function udpRaw(server: string, message: Buffer, timeoutMs = 3000): Promise<Buffer> {
  const [host, port] = server.split(':');
  const socket = createSocket('udp4');
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no UDP answer from ${server} within ${timeoutMs} ms`)), timeoutMs);
      socket.once('message', (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      socket.send(message, Number(port), host);
    });
  } finally {
    socket.close();
  }
}

/** Sends one query packet over UDP to host:port and parses the first reply, failing after timeoutMs. */
export async function udpExchange(server: string, query: DnsMessage, timeoutMs = 3000): Promise<DnsMessage> {
  return Packet.parse(await udpRaw(server, query.toBuffer(), timeoutMs));
}

/** A query for one name and type, with an EDNS OPT record (RFC 6891) when `edns` is given. */
export function queryFor(name: string, type: number, edns?: { udpPayloadSize: number; version?: number; doFlag?: boolean }): DnsMessage {
  const query = new Packet();
  query.header.id = Math.floor(Math.random() * 0xffff);
  // dns2's type declarations lag its runtime: plain objects are what its encoder reads, and EDNS takes options.
  query.questions.push({ name, type, class: Packet.CLASS.IN } as unknown as DnsMessage['questions'][number]);
  const opt = (Packet.Resource.EDNS as unknown as (rdata: unknown[], options: object) => object)([], edns ?? {});
  if (edns) query.additionals.push(Object.assign({ name: '' }, opt) as unknown as DnsMessage['additionals'][number]);
  return query;
}

/**
 * A query without additional records given an OPT record written by hand (RFC 6891 §6.1.2: root name, type 41, a
 * UDP size of 1232, version 0), whose RDLENGTH and RDATA need not agree, as a hostile client's may not.
 */
export function withOptRecord(query: Buffer, rdlength: number, rdata: Buffer): Buffer {
  const fixed = Buffer.alloc(11);
  fixed.writeUInt16BE(41, 1);
  fixed.writeUInt16BE(1232, 3);
  fixed.writeUInt16BE(rdlength, 9);
  const message = Buffer.concat([query, fixed, rdata]);
  message.writeUInt16BE(1, 10);
  return message;
}

/** The code and length that start an EDNS option (RFC 6891 §6.1.2). */
export function optionHeader(code: number, length: number): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16BE(code, 0);
  header.writeUInt16BE(length, 2);
  return header;
}
