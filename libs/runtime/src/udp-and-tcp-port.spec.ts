import * as dgram from 'node:dgram';
import * as net from 'node:net';
import { bindUdpAndTcp } from './udp-and-tcp-port';

const listening = (server: net.Server, port = 0) => new Promise<number>((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
const closed = (server: net.Server) => new Promise((resolve) => server.close(resolve));

describe(bindUdpAndTcp.name, () => {
  it('with port 0, takes another port when the one picked for UDP is taken for TCP', async () => {
    const holder = net.createServer();
    const takenForTcp = await listening(holder);
    const udpSockets: dgram.Socket[] = [];
    // The first UDP socket lands on the port TCP has taken, as the system's pick may; the next one anywhere.
    const newUdp = () => {
      const udp = dgram.createSocket('udp4');
      if (!udpSockets.length) {
        const bind = udp.bind.bind(udp) as (port: number, host: string, callback: () => void) => dgram.Socket;
        udp.bind = ((_port: number, host: string, callback: () => void) => bind(takenForTcp, host, callback)) as typeof udp.bind;
      }
      udpSockets.push(udp);
      return udp;
    };
    const tcp = net.createServer();
    try {
      const udp = await bindUdpAndTcp('127.0.0.1', 0, newUdp, tcp, () => undefined);
      const port = udp.address().port;
      expect(udpSockets).toHaveLength(2);
      expect(port).not.toBe(takenForTcp);
      expect((tcp.address() as net.AddressInfo).port).toBe(port);
      udp.close();
    } finally {
      await Promise.all([closed(tcp), closed(holder)]);
    }
  });

  it('with a fixed port taken for TCP, fails and leaves no UDP socket bound', async () => {
    const holder = net.createServer();
    const taken = await listening(holder);
    const udpSockets: dgram.Socket[] = [];
    const tcp = net.createServer();
    try {
      await expect(bindUdpAndTcp('127.0.0.1', taken, () => udpSockets[udpSockets.push(dgram.createSocket('udp4')) - 1], tcp, () => undefined)).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(udpSockets).toHaveLength(1);
      // Closed: binding the port for UDP again succeeds.
      const again = dgram.createSocket('udp4');
      await new Promise<void>((resolve) => again.bind(taken, '127.0.0.1', resolve));
      again.close();
    } finally {
      await closed(holder);
    }
  });
});
