import { once } from 'node:events';
import * as net from 'node:net';
import { eventually } from '@mailroom/testing';
import { listenDns } from './dns-transport';

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
});
