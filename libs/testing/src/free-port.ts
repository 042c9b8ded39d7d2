import { createServer } from 'node:net';

/** Below Linux's ephemeral range (32768–60999), which outgoing connections take from. */
const STABLE_PORTS = { from: 20000, to: 32000 };

/** A random port number below the ephemeral range, which no socket bound to port 0 or connecting out can take. */
export function randomStablePort(): number {
  return STABLE_PORTS.from + Math.floor(Math.random() * (STABLE_PORTS.to - STABLE_PORTS.from));
}

/**
 * A port that is free now and stays free while the launcher boots (20 s and
 * more with an embedded Postgres). One the kernel hands out for port 0 comes
 * from the ephemeral range, where the suite's own client connections took it
 * in the meantime (EADDRINUSE when the gateway bound it).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = randomStablePort();
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '0.0.0.0', () => resolve(true));
    });
    if (bound) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
}
