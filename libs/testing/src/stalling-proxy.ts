import { AddressInfo, createServer, Socket } from 'node:net';

export interface StallingProxy {
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  url: string;
  /** From now on nothing passes either way and new connections are taken but not answered: a host gone silent. */
  stall(): void;
  /**
   * From now on the server's replies, and its closing of a connection, are held back while the client's
   * messages go through; resume() passes on each connection's held replies in one write, as a client reads
   * a burst of messages that arrived together (say ReadyForQuery and, right behind it, a FATAL).
   */
  holdReplies(): void;
  /** Passes on what was held back, in order, and everything after: the network is back. */
  resume(): void;
  close(): Promise<void>;
}

/** One direction of a proxied connection: held, or written through. */
class Pipe {
  private held: Buffer[] = [];
  private endHeld = false;
  constructor(private readonly to: () => Socket | undefined) {}

  carry(chunk: Buffer, holding: boolean): void {
    const socket = this.to();
    if (holding || !socket) this.held.push(chunk);
    else socket.write(chunk);
  }

  /** The other side closed: close this one too, once what is held has gone. */
  end(holding: boolean): void {
    if (holding) this.endHeld = true;
    else this.to()?.destroySoon();
  }

  flush(): void {
    const socket = this.to();
    if (!socket) return;
    if (this.held.length) socket.write(Buffer.concat(this.held));
    this.held = [];
    if (this.endHeld) socket.destroySoon();
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
  let mode: 'open' | 'stalled' | 'holding replies' = 'open';
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
        upstream.on('data', (chunk: Buffer) => connection.toClient.carry(chunk, mode !== 'open'));
        upstream.on('error', () => undefined);
        upstream.on('close', () => connection.toClient.end(mode !== 'open'));
        upstream.connect(Number(target.port || 5432), target.hostname, () => connection.toServer.flush());
      },
    };
    connections.push(connection);
    client.on('data', (chunk: Buffer) => connection.toServer.carry(chunk, mode === 'stalled'));
    client.on('error', () => undefined);
    client.on('close', () => connection.upstream?.destroy());
    // Accepted by the kernel either way; a stalled host just never answers the startup message.
    if (mode !== 'stalled') connection.open();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);

  return {
    url: url.toString(),
    stall: () => {
      mode = 'stalled';
    },
    holdReplies: () => {
      mode = 'holding replies';
    },
    resume: () => {
      mode = 'open';
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
