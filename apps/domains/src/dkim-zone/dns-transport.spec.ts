import { once } from 'node:events';
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import { eventually } from '@mailroom/testing';
import { listenDns, udpResponder } from './dns-transport';

/** A DNS message framed for TCP: its two-byte length, then a bare 12-byte header. */
const framedQuery = Buffer.concat([Buffer.from([0, 12]), Buffer.alloc(12)]);

describe('listenDns over TCP', () => {
  it('drops a client that sends queries and reads none of the answers, rather than holding its answers in memory without bound', async () => {
    let answered = 0;
    const answer = Buffer.alloc(4096);
    const listeners = await listenDns('127.0.0.1', 0, async () => ((answered += 1), answer), () => undefined, (address) => address);
    const client = net.connect(listeners.port, '127.0.0.1');
    client.on('error', () => undefined);
    try {
      await once(client, 'connect');
      client.pause(); // reads nothing
      // 10,000 answers of 4 KiB: 40 MB, far past what the kernel's socket buffers hold.
      client.write(Buffer.concat(Array.from({ length: 10_000 }, () => framedQuery)));
      await eventually(() => answered > 0 && listeners.openTcpConnections() === 0, 5_000);
    } finally {
      client.destroy();
      await listeners.close();
    }
  });

  it('keeps a client that reads its answers, however many it asks for at once', async () => {
    // About a DKIM TXT answer's size (a 2048-bit key), to a resolver that pipelines 200 queries at once.
    const answer = Buffer.alloc(512);
    const listeners = await listenDns('127.0.0.1', 0, async () => answer, () => undefined, (address) => address);
    const client = net.connect(listeners.port, '127.0.0.1');
    try {
      await once(client, 'connect');
      let received = 0;
      client.on('data', (chunk: Buffer) => (received += chunk.length));
      for (let burst = 0; burst < 50; burst += 1) {
        client.write(Buffer.concat(Array.from({ length: 200 }, () => framedQuery)));
        await eventually(() => received === (burst + 1) * 200 * (2 + answer.length), 5_000);
      }
      expect(listeners.openTcpConnections()).toBe(1);
    } finally {
      client.destroy();
      await listeners.close();
    }
  });

  describe('idle connections (RFC 7766 §6.2.3)', () => {
    const IDLE_MS = 200;
    const listen = (exchange: () => Promise<Buffer | null> = async () => Buffer.alloc(12), idleMs = IDLE_MS) =>
      listenDns('127.0.0.1', 0, exchange, () => undefined, (address) => address, idleMs);
    /** A client that, as a hostile one may, keeps its side open when the server closes its own. */
    const stubbornClient = async (port: number) => {
      const client = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      client.on('error', () => undefined);
      client.resume();
      await once(client, 'connect');
      return client;
    };

    it('closes a connection that sends nothing, even when its client never closes its side after the server closed its own', async () => {
      const listeners = await listen();
      const client = await stubbornClient(listeners.port);
      try {
        await eventually(() => listeners.openTcpConnections() === 1, 2_000);
        // Else one client address holds its TCP_CONNECTIONS_PER_CLIENT for ever, and 63 of them hold all the server keeps.
        await eventually(() => listeners.openTcpConnections() === 0, 20 * IDLE_MS);
      } finally {
        client.destroy();
        await listeners.close();
      }
    });

    it('closes a connection that trickles a message a byte at a time, which never completes', async () => {
      const listeners = await listen();
      const client = await stubbornClient(listeners.port);
      // A length that claims 65,535 bytes: at one byte per tick it would take days to arrive.
      const trickle = setInterval(() => client.writable && client.write(Buffer.from([0xff])), IDLE_MS / 4);
      try {
        await eventually(() => listeners.openTcpConnections() === 0, 20 * IDLE_MS);
      } finally {
        clearInterval(trickle);
        client.destroy();
        await listeners.close();
      }
    });

    it('keeps a connection whose queries keep coming, and waits for an answer that takes longer than the idle time', async () => {
      // An idle time of its own, each query a tenth of it after the last answer, for twice as long: only the queries
      // can have kept the connection open. With queries half an idle time apart, a pause of the process on a loaded
      // machine (server and client share its event loop) let the server see the connection idle; now it must be
      // nine tenths of an idle time to.
      const idleMs = 5 * IDLE_MS;
      let slow = true;
      const listeners = await listen(async () => {
        if (slow) await new Promise((resolve) => setTimeout(resolve, 2 * idleMs));
        return Buffer.alloc(12);
      }, idleMs);
      const client = await stubbornClient(listeners.port);
      let answers = 0;
      client.on('data', (chunk: Buffer) => (answers += chunk.length / 14));
      try {
        client.write(framedQuery);
        await eventually(() => answers === 1, 20 * idleMs);
        slow = false;
        const keptSince = Date.now();
        for (let query = 2; Date.now() - keptSince < 2 * idleMs; query += 1) {
          await new Promise((resolve) => setTimeout(resolve, idleMs / 10));
          client.write(framedQuery);
          await eventually(() => answers === query, 20 * idleMs, 5);
        }
        expect(listeners.openTcpConnections()).toBe(1);
      } finally {
        client.destroy();
        await listeners.close();
      }
    });
  });
});

describe('listenDns at shutdown', () => {
  it('drops an answer that is ready only after the listeners closed (a lookup in flight at shutdown), without an unhandled rejection', async () => {
    let lookupStarted = false;
    let finishLookup: (answer: Buffer) => void = () => undefined;
    const lookup = () => ((lookupStarted = true), new Promise<Buffer>((resolve) => (finishLookup = resolve)));
    const errors: Error[] = [];
    const listeners = await listenDns('127.0.0.1', 0, lookup, (error) => errors.push(error), (address) => address);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const client = dgram.createSocket('udp4');
    try {
      client.send(Buffer.alloc(12), listeners.port, '127.0.0.1');
      await eventually(() => lookupStarted, 2_000);
      await listeners.close();
      finishLookup(Buffer.alloc(12));
      // Node reports an unhandled rejection after the microtask queue drains; give it a few macrotask turns.
      for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      client.close();
    }
  });
});

describe(udpResponder.name, () => {
  it('drops a datagram from source port 0, which only a forged packet has and send() throws for, before any lookup and without a log line', async () => {
    const exchange = jest.fn(async () => Buffer.alloc(12));
    const errors: Error[] = [];
    // As dgram's send() does for port 0 (ERR_SOCKET_BAD_PORT): it throws, it does not call back.
    const send = jest.fn(() => {
      throw new RangeError('Port should be > 0 and < 65536. Received type number (0).');
    });
    const respond = udpResponder({ send } as unknown as Pick<dgram.Socket, 'send'>, exchange, (error) => errors.push(error), () => false);
    respond(Buffer.alloc(12), { address: '192.0.2.7', family: 'IPv4', port: 0, size: 12 });
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    // A flood of them, forged from every network, would otherwise cost a key lookup and a warning each.
    expect(exchange).not.toHaveBeenCalled();
    expect(send).not.toHaveBeenCalled();
    expect(errors).toEqual([]);
  });

  it('sends the answer back to the port and address the query came from', async () => {
    const send = jest.fn();
    const respond = udpResponder({ send } as unknown as Pick<dgram.Socket, 'send'>, async () => Buffer.from('answer'), () => undefined, () => false);
    respond(Buffer.alloc(12), { address: '192.0.2.7', family: 'IPv4', port: 5300, size: 12 });
    await eventually(() => send.mock.calls.length === 1, 1_000);
    expect(send).toHaveBeenCalledWith(Buffer.from('answer'), 5300, '192.0.2.7');
  });
});
