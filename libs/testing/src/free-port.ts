import { createServer } from 'node:net';

/** Below Linux's ephemeral range (32768–60999), which outgoing connections take from. */
const STABLE_PORTS = { from: 20000, to: 32000 };
/** Jest workers sharing the machine's stable ports, a slice each (maxWorkers is 2; more wrap around). */
const WORKER_SLICES = 4;

/**
 * The stable ports of one Jest worker. A port is probed free and released, and its server binds it seconds later:
 * drawn from one range, the other worker could probe the same port free meanwhile and bind it first (EADDRINUSE).
 */
export function stablePortsOf(jestWorkerId: string | undefined): { from: number; to: number } {
  const slice = (Math.max(1, Number(jestWorkerId) || 1) - 1) % WORKER_SLICES;
  const size = Math.floor((STABLE_PORTS.to - STABLE_PORTS.from) / WORKER_SLICES);
  return { from: STABLE_PORTS.from + slice * size, to: STABLE_PORTS.from + (slice + 1) * size };
}

/** Ports this process has handed out: each may still be waiting for its server, so none is handed out again. */
const handedOut = new Set<number>();

/**
 * A random port number below the ephemeral range, which no socket bound to port 0 or connecting out can take, and
 * which this process has not handed out before (a suite takes several before any is bound: a DKIM port, an ops port).
 */
export function randomStablePort(): number {
  const { from, to } = stablePortsOf(process.env.JEST_WORKER_ID);
  if (handedOut.size >= to - from) throw new Error(`every stable port from ${from} to ${to} has been handed out`);
  for (;;) {
    const port = from + Math.floor(Math.random() * (to - from));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
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
