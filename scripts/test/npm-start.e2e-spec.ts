import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, dropTestDatabase, eventually, freePort, PrivateNats, startPrivateNats } from '@mailroom/testing';

const ROOT = join(__dirname, '../..');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The launcher behind `npm start`, run as npm runs it: under `sh -c`. */
describe('npm start (the launcher)', () => {
  let databaseUrl: string;
  let nats: PrivateNats;
  let shell: ChildProcess | undefined;
  let launcherPid = 0;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    nats = await startPrivateNats();
  });

  afterAll(async () => {
    if (launcherPid && alive(launcherPid)) process.kill(launcherPid, 'SIGINT');
    await eventually(() => !launcherPid || !alive(launcherPid), 30_000).catch(() => undefined);
    await nats?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  it('prints a first key, serves, and stops the whole stack when the shell npm ran it in dies', async () => {
    const port = await freePort();
    // `; true` keeps sh waiting as the parent, as npm's `sh -c` does, instead of exec-ing node.
    shell = spawn('sh', ['-c', 'node dist/scripts/start.js; true'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, NATS_URL: nats.url, PORT: String(port), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    shell.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    shell.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));

    await eventually(() => output.includes('[mailroom] ready'), 60_000, 200);
    const key = /^\s+(mr_[0-9A-Za-z]+)$/m.exec(output)?.[1];
    expect(key).toBeDefined();
    const keys = await fetch(`http://127.0.0.1:${port}/v1/api-keys`, { headers: { authorization: `Bearer ${key}` } });
    expect(keys.status).toBe(200);

    launcherPid = Number(spawnSync('ps', ['-o', 'pid=', '--ppid', String(shell.pid)], { encoding: 'utf8' }).stdout.trim());
    expect(launcherPid).toBeGreaterThan(0);
    // What a SIGTERM to npm does to its `sh -c`: the shell dies and passes nothing on.
    shell.kill('SIGKILL');

    await eventually(() => !alive(launcherPid), 30_000, 100);
    const answered = await fetch(`http://127.0.0.1:${port}/health`).then(() => true, () => false);
    expect(answered).toBe(false);
    expect(output).toContain('[mailroom] stopping');
  });

  it('stops the whole stack when its terminal closes: SIGHUP, with its output gone', async () => {
    const port = await freePort();
    const launcher = spawn(process.execPath, ['dist/scripts/start.js'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, NATS_URL: nats.url, PORT: String(port), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcherPid = launcher.pid!;
    let output = '';
    launcher.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(() => output.includes('[mailroom] ready'), 60_000, 200);
    const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));

    launcher.stdout!.destroy();
    launcher.stderr!.destroy();
    launcher.kill('SIGHUP');

    // It stopped its apps and exited as for Ctrl-C (0), instead of crashing on the closed pipe.
    expect(await exited).toBe(0);
    await eventually(async () => !(await fetch(`http://127.0.0.1:${port}/health`).then(() => true, () => false)), 10_000);
  });

  it('with its embedded Postgres, stops the apps on Ctrl-C before it stops Postgres, so their work in flight can commit', async () => {
    const [port, postgresPort] = [await freePort(), await freePort()];
    const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-start-'));
    // As root, Postgres runs as the postgres user, who must be able to reach its data directory.
    await chmod(dataDir, 0o755);
    const launcher = spawn(process.execPath, ['dist/scripts/start.js'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(postgresPort), NATS_URL: nats.url, PORT: String(port), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcherPid = launcher.pid!;
    let output = '';
    launcher.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    launcher.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let observer: Client | undefined;
    let watch: NodeJS.Timeout | undefined;
    try {
      await eventually(() => output.includes('[mailroom] ready'), 90_000, 200).catch((error: Error) => {
        throw new Error(`${error.message}; the launcher wrote: ${output}`);
      });
      const apps = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(launcherPid)], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter((line) => line.includes('dist/apps/'))
        .map((line) => Number(line.trim().split(' ')[0]));
      expect(apps).toHaveLength(5);

      // A connection of our own to the embedded Postgres: its loss marks when Postgres went down.
      observer = new Client({ connectionString: `postgres://postgres:mailroom-local@127.0.0.1:${postgresPort}/mailroom` });
      await observer.connect();
      let postgresDownAt = 0;
      observer.on('error', () => (postgresDownAt ||= Date.now()));
      observer.on('end', () => (postgresDownAt ||= Date.now()));
      // The last moment some app was certainly alive. It is never later than the last app's real exit, so it
      // can only come after Postgres went down if an app outlived Postgres.
      let appLastSeenAt = Date.now();
      watch = setInterval(() => {
        if (apps.some((pid) => alive(pid))) appLastSeenAt = Date.now();
      }, 5);
      const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));

      launcher.kill('SIGINT');
      expect(await exited).toBe(0);
      await eventually(() => postgresDownAt > 0, 10_000);
      expect(apps.filter((pid) => alive(pid))).toEqual([]);
      expect(appLastSeenAt).toBeLessThanOrEqual(postgresDownAt);
    } finally {
      clearInterval(watch);
      await observer?.end().catch(() => undefined);
      if (alive(launcherPid)) launcher.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 150_000);
});
