import { ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { issueKeyDirectly } from '../issue-key';
import { portOpen } from '../local/embedded-postgres';
import { stopChild, waitFor } from '../local/local-nats';
import { migrateAll } from '../migrate-all';

export type BenchApp = 'keys' | 'domains' | 'emails' | 'webhook-dispatcher' | 'gateway';
/** An app, or an app with environment of its own (e.g. one emails process as the api, another as the worker). */
export type BenchProcess = BenchApp | { app: BenchApp; env: Record<string, string> };

export interface BenchStack {
  baseUrl: string;
  databaseUrl: string;
  /** The private nats-server, for benches that publish onto the event stream as an internal service would. */
  natsUrl: string;
  rootKey: string;
  /** Each app process's ops server (health, /metrics); an app may run more than once, so each has a name of its own. */
  processes: { app: BenchApp; name: string; opsUrl: string }[];
  stop(): Promise<void>;
}

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/**
 * What the bench's reports call an app process: its app, and the emails worker apart from the emails api, since
 * what each accepted email costs after its answer is worth telling from the answer's own cost.
 */
export function benchPartName(app: string, env: Readonly<Record<string, string | undefined>>): string {
  return app === 'emails' && env.EMAILS_ROLE === 'worker' ? 'emails-worker' : app;
}

/** e.g. BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile every app process under load. */
const EXTRA_NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

async function answers200(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).status === 200;
  } catch {
    return false;
  }
}

/**
 * The stack as production runs it: each app its own process from the compiled
 * build, a fresh database on the local Postgres and a private nats-server.
 */
export async function startBenchStack(processes: BenchProcess[], env: Record<string, string> = {}): Promise<BenchStack> {
  const apps = processes.map((process) => (typeof process === 'string' ? process : process.app));
  const ownEnv = processes.map((process) => (typeof process === 'string' ? {} : process.env));
  const database = await createBenchDatabase();
  const databaseUrl = database.url;
  await migrateAll(databaseUrl);
  const nats = await startPrivateNats();

  const port = 13000 + Math.floor(Math.random() * 1000);
  const children: ChildProcess[] = [];
  /** Each process's whole environment, as its report names it too (benchPartName). */
  const childEnv = apps.map((_, index): NodeJS.ProcessEnv => ({
    ...process.env,
    NODE_ENV: 'production',
    ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    NATS_URL: nats.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    HEALTH_PORT: String(port + 100 + index),
    HEALTH_HOST: '127.0.0.1',
    RATE_LIMIT_PER_SECOND: '0',
    DKIM_DNS_BIND: 'off',
    ...env,
    ...ownEnv[index],
  }));
  for (const [index, app] of apps.entries()) {
    const child = spawn(process.execPath, [...EXTRA_NODE_ARGS, join(__dirname, '..', '..', 'apps', app, 'src', 'main.js')], {
      env: childEnv[index],
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  // Every app's readiness, not just the gateway's port: a request that beats the keys
  // service's NATS subscription would be answered 503 and spoil the run.
  for (const index of apps.keys()) await waitFor(() => answers200(`http://127.0.0.1:${port + 100 + index}/health/ready`), 30000, `${apps[index]} did not become ready`);
  const root = await issueKeyDirectly(databaseUrl, { name: 'bench', mode: 'live', permissions: ['*'], domainRestrictions: [], ipRestrictions: [], expiresAt: null });

  return {
    baseUrl,
    databaseUrl,
    natsUrl: nats.url,
    rootKey: root.key,
    processes: apps.map((app, index) => ({ app, name: benchPartName(app, childEnv[index]), opsUrl: `http://127.0.0.1:${port + 100 + index}` })),
    stop: async () => {
      await Promise.all(children.map((child) => stopChild(child)));
      await nats.stop();
      await database.drop();
    },
  };
}

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database on the local Postgres (BENCH_DATABASE_URL's server), dropped again by drop(). */
export async function createBenchDatabase(): Promise<BenchDatabase> {
  const name = `mailroom_bench_${Date.now().toString(36)}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const cleanup = new Client({ connectionString: ADMIN_URL });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

/** A nats-server with JetStream of the bench's own, on a random loopback port with its store in a temporary directory. */
export async function startPrivateNats(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = 14222 + Math.floor(Math.random() * 1000);
  const store = await mkdtemp(join(tmpdir(), 'mailroom-bench-nats-'));
  const server = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], { stdio: 'ignore' });
  await waitFor(() => portOpen('127.0.0.1', port), 10000, 'nats-server did not start');
  return {
    url: `nats://127.0.0.1:${port}`,
    stop: async () => {
      await stopChild(server);
      await rm(store, { recursive: true, force: true });
    },
  };
}
