import { createServer } from 'node:net';

export interface WantedPort {
  /** What the port is for, as the operator would fix it: "PORT 3000", "HEALTH_PORT 8083 (emails' operations port)". */
  name: string;
  host: string;
  port: number;
}

function inUse({ host, port }: WantedPort): Promise<boolean> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? done(true) : fail(error)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => done(false)));
  });
}

/**
 * Fails, naming the variable, when a port `npm start` is about to give an app
 * is taken: by another `npm start` above all, whose gateway would otherwise
 * answer the launcher's health check and have it say "ready" before its own
 * gateway failed, with its services already serving the other stack's queues.
 */
export async function ensurePortsFree(ports: WantedPort[]): Promise<void> {
  for (const wanted of ports) {
    if (await inUse(wanted)) {
      throw new Error(`${wanted.name} is already in use on ${wanted.host}: is another \`npm start\` running? Stop it, or set another port.`);
    }
  }
}
