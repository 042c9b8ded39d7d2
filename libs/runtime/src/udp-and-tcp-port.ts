import type * as dgram from 'node:dgram';
import type * as net from 'node:net';

/**
 * How often a UDP port the system picked is tried again for TCP when something already holds it for TCP. The
 * two protocols' ports are separate, so the port picked for UDP may be in use by any TCP socket (a listener, or
 * the local end of an outgoing connection); on a busy host that happens now and then, never many times running.
 */
const PORT_PAIRING_TRIES = 20;

/** Errors after the bind go to `onError`: a dgram socket's error with no listener would end the process. */
function bindUdp(udp: dgram.Socket, port: number, host: string, onError: (error: Error) => void): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(port, host, () => {
      udp.off('error', reject);
      udp.on('error', onError);
      resolve(udp.address().port);
    });
  });
}

function listenTcp(tcp: net.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(port, host, () => {
      tcp.off('error', reject);
      resolve();
    });
  });
}

/**
 * Binds a UDP socket from `newUdp` and `tcp` to one port: `port`, or with 0 one the system picks for UDP, tried
 * again with another UDP socket while TCP finds it taken. Answers the bound UDP socket; on failure nothing stays bound.
 */
export async function bindUdpAndTcp(
  host: string,
  port: number,
  newUdp: () => dgram.Socket,
  tcp: net.Server,
  onUdpError: (error: Error) => void,
): Promise<dgram.Socket> {
  for (let tries = 1; ; tries += 1) {
    const udp = newUdp();
    let bound: number;
    try {
      bound = await bindUdp(udp, port, host, onUdpError);
    } catch (error) {
      udp.close();
      throw error;
    }
    try {
      await listenTcp(tcp, bound, host);
      return udp;
    } catch (error) {
      udp.close();
      const taken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (port !== 0 || !taken || tries >= PORT_PAIRING_TRIES) throw error;
    }
  }
}
