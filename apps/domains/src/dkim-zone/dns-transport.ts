import * as dgram from 'node:dgram';
import * as net from 'node:net';
import { bindUdpAndTcp } from '@mailroom/runtime';

/** Answers one raw DNS message from `peer` (an IP address) with the raw answer to send back, or null to stay silent. */
export type DnsExchange = (message: Buffer, transport: 'udp' | 'tcp', peer: string) => Promise<Buffer | null>;

export interface DnsListeners {
  port: number;
  /** TCP connections open now (at most TCP_MAX_CONNECTIONS). */
  openTcpConnections(): number;
  close(): Promise<void>;
}

/**
 * RFC 7766 §6.2.3: a TCP connection that carries no message for this long is closed; clients reconnect on demand.
 * Only a whole message or an answer counts as use: a client trickling a message a byte at a time is idle.
 */
const TCP_IDLE_MS = 10_000;
/** Each connection may hold up to 64 KiB of a message being read; this bounds what slow clients can pin. */
const TCP_MAX_CONNECTIONS = 1000;
/**
 * RFC 7766 §6.2.2: a server may limit the connections one client holds. Without it one client could open all
 * TCP_MAX_CONNECTIONS and keep them idle, and every resolver that a truncated answer sends over to TCP would be turned away.
 */
export const TCP_CONNECTIONS_PER_CLIENT = 16;
/**
 * Answers written and not yet taken by the kernel, past which a connection is dropped (RFC 7766 §6.2 lets a
 * server close connections to manage its resources). A client that sends queries and reads no answers would
 * otherwise have every answer held in memory for it, as fast as it can send 14-byte queries. A resolver that
 * reads its answers leaves nothing here beyond what the kernel's buffers take at once: 128 KiB is some 250
 * DKIM answers pipelined at once past those. Bounds what 1,000 connections hold to about 128 MB.
 */
const MAX_UNSENT_ANSWER_BYTES = 128 * 1024;

/**
 * DNS over UDP and TCP on one port (RFC 7766: TCP is not optional), handing
 * each message to `exchange` as bytes, so nothing parses a message before the
 * caller has screened it. TCP messages are framed by a two-byte length
 * (RFC 1035 §4.2.2), several per connection, answered in any order.
 */
export async function listenDns(
  host: string,
  port: number,
  exchange: DnsExchange,
  onError: (error: Error) => void,
  /** Which TCP peers count as one client towards TCP_CONNECTIONS_PER_CLIENT. */
  clientOf: (address: string) => string,
  tcpIdleMs = TCP_IDLE_MS,
): Promise<DnsListeners> {
  let closed = false;
  const connections = new Set<net.Socket>();
  const openPerClient = new Map<string, number>();
  const tcp = net.createServer({ allowHalfOpen: true }, (socket) => {
    const client = clientOf(socket.remoteAddress ?? '');
    const open = openPerClient.get(client) ?? 0;
    if (open >= TCP_CONNECTIONS_PER_CLIENT) return void socket.destroy();
    openPerClient.set(client, open + 1);
    socket.once('close', () => {
      const left = openPerClient.get(client)! - 1;
      if (left === 0) openPerClient.delete(client);
      else openPerClient.set(client, left);
    });
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered: Buffer = Buffer.alloc(0);
    let pending = 0;
    let ended = false;
    // Not socket.setTimeout, which any byte restarts, and not end() alone: a client that leaves its side open
    // after ours is closed, or sends a byte now and then, would hold its connection (and its client's share) for ever.
    const idle = setTimeout(function closeIdle() {
      if (pending > 0) return void idle.refresh(); // an answer is still being looked up
      if (socket.writableEnded) return void socket.destroy(); // our side closed an idle time ago; the client's never was
      socket.end();
      idle.refresh();
    }, tcpIdleMs);
    socket.once('close', () => clearTimeout(idle));
    const endIfDone = () => {
      if (ended && pending === 0 && !socket.destroyed) socket.end();
    };
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
        buffered = buffered.subarray(2 + message.length);
        idle.refresh();
        pending += 1;
        exchange(message, 'tcp', socket.remoteAddress ?? '')
          .then((answer) => {
            if (!answer || socket.destroyed || socket.writableEnded) return;
            const length = Buffer.alloc(2);
            length.writeUInt16BE(answer.length);
            socket.write(Buffer.concat([length, answer]));
            idle.refresh();
            if (socket.writableLength > MAX_UNSENT_ANSWER_BYTES) socket.destroy();
          }, onError)
          .finally(() => {
            pending -= 1;
            endIfDone();
          });
      }
    });
    // The client may send its query and half-close at once: answer, then close our side.
    socket.on('end', () => {
      ended = true;
      endIfDone();
    });
  });
  tcp.maxConnections = TCP_MAX_CONNECTIONS;
  const newUdp = () => {
    const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
    socket.on('message', udpResponder(socket, exchange, onError, () => closed));
    return socket;
  };
  const udp = await bindUdpAndTcp(host, port, newUdp, tcp, onError);
  const boundPort = udp.address().port;

  return {
    port: boundPort,
    openTcpConnections: () => connections.size,
    close: async () => {
      closed = true;
      await new Promise<void>((resolve) => udp.close(() => resolve())).catch(() => undefined);
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}

/**
 * What the UDP socket does with each datagram: hands it to `exchange` and sends the answer back to where it came
 * from. send() throws for some destinations and for a closed socket, and a rejection handled nowhere ends the process.
 */
export function udpResponder(
  udp: Pick<dgram.Socket, 'send'>,
  exchange: DnsExchange,
  onError: (error: Error) => void,
  /** An answer looked up while the listeners closed (at shutdown) has no socket left to go out on. */
  isClosed: () => boolean,
): (message: Buffer, peer: dgram.RemoteInfo) => void {
  return (message, peer) => {
    // No client sends from port 0 and nothing can be sent to it (send() throws): only a forged source has it.
    if (peer.port === 0) return;
    exchange(message, 'udp', peer.address)
      .then((answer) => answer && !isClosed() && udp.send(answer, peer.port, peer.address))
      .catch((error: Error) => onError(error));
  };
}
