import { AddressInfo, createServer, Socket } from 'node:net';

export interface StallingProxy {
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  url: string;
  /** From now on nothing passes either way and new connections are taken but not answered: a host gone silent. */
  stall(): void;
  /** Passes on what was held back, in order, and everything after: the network is back. */
  resume(): void;
  close(): Promise<void>;
}

/** One direction of a proxied connection: held while stalled, written through otherwise. */
class Pipe {
  private held: Buffer[] = [];
  constructor(private readonly to: () => Socket | undefined) {}

  carry(chunk: Buffer, stalled: boolean): void {
    const socket = this.to();
    if (stalled || !socket) this.held.push(chunk);
    else socket.write(chunk);
  }

  flush(): void {
    const socket = this.to();
    if (!socket) return;
    for (const chunk of this.held) socket.write(chunk);
    this.held = [];
  }
}

interface Connection {
  client: Socket;
  upstream: Socket | undefined;
  toServer: Pipe;
  toClient: Pipe;
  /** Connects to Postgres and passes on what the client sent so far. */
  open(): void;
}

/**
 * A TCP proxy in front of the Postgres of `databaseUrl` that can be made to
 * stop answering without closing anything, as a blackholed host or a network
 * partition looks to a client (no RST, no FIN: requests just get no reply),
 * which no root-free firewall rule gives a test. What is held back is passed
 * on when it resumes, as TCP retransmits it once a partition heals.
 */
export async function startStallingProxy(databaseUrl: string): Promise<StallingProxy> {
  const target = new URL(databaseUrl);
  let stalled = false;
  const connections: Connection[] = [];

  const server = createServer((client) => {
    const connection: Connection = {
      client,
      upstream: undefined,
      toServer: new Pipe(() => connection.upstream),
      toClient: new Pipe(() => client),
      open: () => {
        const upstream = new Socket();
        connection.upstream = upstream;
        upstream.on('data', (chunk: Buffer) => connection.toClient.carry(chunk, stalled));
        upstream.on('error', () => client.destroy());
        upstream.on('close', () => client.destroy());
        upstream.connect(Number(target.port || 5432), target.hostname, () => connection.toServer.flush());
      },
    };
    connections.push(connection);
    client.on('data', (chunk: Buffer) => connection.toServer.carry(chunk, stalled));
    client.on('error', () => connection.upstream?.destroy());
    client.on('close', () => connection.upstream?.destroy());
    // Accepted by the kernel either way; a stalled host just never answers the startup message.
    if (!stalled) connection.open();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);

  return {
    url: url.toString(),
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      for (const connection of connections) {
        if (!connection.upstream) connection.open();
        else connection.toServer.flush();
        connection.toClient.flush();
      }
    },
    close: async () => {
      for (const connection of connections) {
        connection.client.destroy();
        connection.upstream?.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
