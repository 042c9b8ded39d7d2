import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createConnection, createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { STACK_PROCESSES } from '../local/stack-processes';
import { createTestDatabase, dropTestDatabase, eventually, freePort, PrivateNats, startNatsWithoutJetStream, startPrivateNats } from '@mailroom/testing';

const ROOT = join(__dirname, '../..');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Every process below `pid`, from ps: the launcher's apps, Postgres and nats-server, however deep. */
const descendants = (pid: number): { pid: number; args: string }[] => {
  const rows = spawnSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, child, parent, args]) => ({ pid: Number(child), ppid: Number(parent), args }));
  const found: { pid: number; args: string }[] = [];
  const visit = (parent: number) => {
    for (const row of rows.filter((candidate) => candidate.ppid === parent)) {
      found.push({ pid: row.pid, args: row.args });
      visit(row.pid);
    }
  };
  visit(pid);
  return found;
};

/** The nice value of a running process: field 19 of /proc/<pid>/stat, counted after the command name's closing parenthesis. */
const niceOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
};

/** Runs the launcher to its end (it must refuse to start) and returns its exit code and what it wrote. */
const refusedStart = (env: Record<string, string>) => {
  const run = spawnSync(process.execPath, ['dist/scripts/start.js'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
};

/** Runs the launcher as npm start does, with what it writes collected, and resolves once it says it is ready. */
const startLauncher = async (env: Record<string, string>, spawned: (pid: number) => void) => {
  const launcher = spawn(process.execPath, ['dist/scripts/start.js'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // Known before the wait below can fail, so the suite can stop it whatever happens.
  spawned(launcher.pid!);
  let output = '';
  launcher.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  launcher.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
  await eventually(() => output.includes('[mailroom] ready'), 60_000, 200);
  return { launcher, exited, output: () => output };
};

/** The launcher behind `npm start`: run by npm, or under a parent that can die without passing a signal on. */
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

  it('prints a first key, serves, and stops the whole stack when the process that ran it dies', async () => {
    const port = await freePort();
    // `; true` keeps sh waiting as the parent instead of exec-ing node, so killing sh orphans the launcher.
    shell = spawn('sh', ['-c', 'node dist/scripts/start.js; true'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, NATS_URL: nats.url, PORT: String(port), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    shell.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    shell.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));

    await eventually(() => output.includes('[mailroom] ready'), 60_000, 200);
    // Known before anything below can fail, so afterAll stops the stack whatever happens.
    launcherPid = Number(spawnSync('ps', ['-o', 'pid=', '--ppid', String(shell.pid)], { encoding: 'utf8' }).stdout.trim());
    expect(launcherPid).toBeGreaterThan(0);
    const key = /^\s+(mr_[0-9A-Za-z]+)$/m.exec(output)?.[1];
    expect(key).toBeDefined();
    const keys = await fetch(`http://127.0.0.1:${port}/v1/api-keys`, { headers: { authorization: `Bearer ${key}` } });
    expect(keys.status).toBe(200);
    // HOST unset is 0.0.0.0: the gateway says it listens on every interface, not on 127.0.0.1 alone. (Written as it
    // returns from listen, which can be a moment after GET /health first answered.)
    const listening = `Mailroom gateway listening on http://0.0.0.0:${port} (all interfaces)`;
    await eventually(() => output.includes(listening), 5_000).catch(() => undefined);
    expect(output).toContain(listening);

    // The emails service runs as two processes: the requests at the normal priority, the background work at nice 10.
    const emailsNice = descendants(shell.pid!)
      .filter((row) => row.args.includes(join('apps', 'emails', 'src', 'main.js')))
      .map((row) => niceOf(row.pid))
      .sort((a, b) => a - b);
    expect(emailsNice).toEqual([0, 10]);
    // …and between them an email is accepted and delivered (test mode simulates the delivery).
    const api = async (path: string, bearer: string, body?: object): Promise<{ key: string; id: string; status: string }> => {
      const init = body ? { method: 'POST', body: JSON.stringify(body) } : { method: 'GET' };
      const response = await fetch(`http://127.0.0.1:${port}${path}`, Object.assign(init, { headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' } }));
      return (await response.json()) as { key: string; id: string; status: string };
    };
    const testKey = (await api('/v1/api-keys', key!, { name: 'launcher test', mode: 'test' })).key;
    const sent = await api('/v1/emails', testKey, { from: 'hi@launcher.test', to: 'delivered@example.com', subject: 'Split', text: 'hi' });
    await eventually(async () => (await api(`/v1/emails/${sent.id}`, testKey)).status === 'delivered', 20_000, 100);

    // Its parent killed outright (npm by SIGKILL, say): it passes nothing on.
    shell.kill('SIGKILL');

    await eventually(() => !alive(launcherPid), 30_000, 100);
    const answered = await fetch(`http://127.0.0.1:${port}/health`).then(() => true, () => false);
    expect(answered).toBe(false);
    expect(output).toContain('[mailroom] stopping');
  });

  // Through npm itself, as the README runs it. Unless the start script execs node, npm's `sh -c` takes the terminal's
  // SIGINT too (and npm's SIGTERM, which it does not pass on), and npm exits 130 or 143 however cleanly the stack
  // stopped. --ignore-scripts skips only the prestart build.
  it.each([
    ['Ctrl-C, SIGINT to its whole foreground group', (npm: ChildProcess) => process.kill(-npm.pid!, 'SIGINT')],
    ['a SIGTERM to npm alone, as a supervisor sends', (npm: ChildProcess) => npm.kill('SIGTERM')],
  ])('`npm start` exits 0 once stopped by %s', async (_how, stop) => {
    const port = await freePort();
    const npm = spawn('npm', ['start', '--ignore-scripts'], {
      cwd: ROOT,
      detached: true,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), DATABASE_URL: databaseUrl, NATS_URL: nats.url, PORT: String(port), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // npm re-raises the signal that ended its script on itself: then the signal, as the shell's 130 or 143.
    const exited = new Promise<number | string | null>((resolve) => npm.once('exit', (code, signal) => resolve(signal ?? code)));
    try {
      await eventually(() => output.includes('[mailroom] ready'), 60_000, 200);
      stop(npm);
      expect(await exited).toBe(0);
      expect(await fetch(`http://127.0.0.1:${port}/health`).then(() => true, () => false)).toBe(false);
    } finally {
      for (const { pid } of [...descendants(npm.pid!), { pid: npm.pid! }]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 120_000);

  it('stops the whole stack when its terminal closes: SIGHUP, with its output gone', async () => {
    const port = await freePort();
    const { launcher, exited } = await startLauncher({ DATABASE_URL: databaseUrl, NATS_URL: nats.url, PORT: String(port), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' }, (pid) => (launcherPid = pid));

    launcher.stdout!.destroy();
    launcher.stderr!.destroy();
    launcher.kill('SIGHUP');

    // It stopped its apps and exited as for Ctrl-C (0), instead of crashing on the closed pipe.
    expect(await exited).toBe(0);
    await eventually(async () => !(await fetch(`http://127.0.0.1:${port}/health`).then(() => true, () => false)), 10_000);
  });

  it('on Ctrl-C gives each app its SHUTDOWN_TIMEOUT_MS to finish its work in flight before it kills it', async () => {
    const port = await freePort();
    const { launcher, exited, output } = await startLauncher({ DATABASE_URL: databaseUrl, NATS_URL: nats.url, PORT: String(port), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off', SHUTDOWN_TIMEOUT_MS: '12000' }, (pid) => (launcherPid = pid));

    // Work in flight the gateway waits for while it closes: a request whose body has not all arrived yet.
    const request = createConnection({ host: '127.0.0.1', port });
    await new Promise((resolve) => request.once('connect', resolve));
    request.write('POST /v1/emails HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    const closed = new Promise<number>((resolve) => request.once('close', () => resolve(Date.now())));
    const answered = new Promise((resolve) => request.once('data', resolve));
    // Read what it answers (401, at once), or the socket never reports its end.
    request.on('error', () => undefined).resume();
    // Its 401 shows the gateway holds the request: a SIGINT relayed to it sooner, on a loaded machine, could find
    // the connection not yet accepted and nothing in flight to wait for.
    await answered;
    const signalledAt = Date.now();
    launcher.kill('SIGINT');

    // The gateway's own deadline ends it (12 s), not the launcher's SIGKILL at 10 s, whatever SHUTDOWN_TIMEOUT_MS says.
    expect(await exited).toBe(0);
    expect(output()).toContain('[gateway] work in flight did not finish within 12000 ms; exiting');
    expect((await closed) - signalledAt).toBeGreaterThanOrEqual(12_000);
  }, 120_000);

  it('stops the whole stack and exits 1 when one of its apps dies, rather than serve on without it', async () => {
    const port = await freePort();
    const { launcher, exited, output } = await startLauncher({ DATABASE_URL: databaseUrl, NATS_URL: nats.url, PORT: String(port), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' }, (pid) => (launcherPid = pid));
    const stack = descendants(launcher.pid!);
    const dispatcher = stack.find(({ args }) => args.includes(join('apps', 'webhook-dispatcher', 'src', 'main.js')))!;

    process.kill(dispatcher.pid, 'SIGKILL');

    expect(await exited).toBe(1);
    expect(output()).toContain('[mailroom] webhook-dispatcher exited (SIGKILL); stopping the stack');
    await eventually(() => stack.every(({ pid }) => !alive(pid)), 30_000, 100);
  }, 120_000);

  it('refuses bad configuration with every problem and exit 78, and no stack trace', () => {
    const run = refusedStart({ DATABASE_URL: databaseUrl, NATS_URL: nats.url, PORT: 'abc', DKIM_DNS_BIND: 'off', LOG_LEVEL: 'loud' });
    expect(run.status).toBe(78);
    expect(run.output).toContain("PORT must be an integer, got 'abc'");
    expect(run.output).toContain("LOG_LEVEL must be one of");
    expect(run.output).not.toMatch(/^\s+at /m);
    // Port 0 suits one app (the OS picks), not npm start, which must know where to wait for the gateway.
    const anyPort = refusedStart({ DATABASE_URL: databaseUrl, NATS_URL: nats.url, PORT: '0', HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' });
    expect(anyPort).toEqual({ status: 78, output: expect.stringContaining('PORT must not be 0 for npm start') });
    expect(anyPort.output).not.toContain('migrations');
  });

  it('refuses a rule between variables of an app it would run (relay mode without a relay) before it starts anything', () => {
    const run = refusedStart({ DATABASE_URL: databaseUrl, NATS_URL: nats.url, HEALTH_PORT: '0', DKIM_DNS_BIND: 'off', DELIVERY_MODE: 'relay', NODE_ENV: 'production' });
    expect(run.status).toBe(78);
    expect(run.output).toContain('SMTP_RELAY_URL is required when DELIVERY_MODE=relay');
    // Four apps use ENCRYPTION_KEY; the problem is said once.
    expect(run.output.match(/ENCRYPTION_KEY is required when NODE_ENV=production/g)).toHaveLength(1);
    expect(run.output).not.toContain('migrations');
  });

  it('refuses a NATS without JetStream (Debian\'s nats-server service) before it starts anything, saying what to do', async () => {
    const withoutJetStream = await startNatsWithoutJetStream();
    try {
      const run = refusedStart({ DATABASE_URL: databaseUrl, NATS_URL: withoutJetStream.url, PORT: String(await freePort()), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' });
      expect(run.status).toBe(1);
      expect(run.output).toContain(`[mailroom] The NATS server at ${withoutJetStream.url} runs without JetStream`);
      // Each way out: JetStream on, that server out of the way, or another NATS_URL.
      expect(run.output).toContain('-js');
      expect(run.output).toContain('systemctl disable --now nats-server');
      expect(run.output).toContain('NATS_URL');
      expect(run.output).not.toContain('migrations');
    } finally {
      await withoutJetStream.stop();
    }
  });

  it('refuses a NATS without JetStream before it initialises an embedded Postgres, which would take seconds for nothing', async () => {
    const withoutJetStream = await startNatsWithoutJetStream();
    const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-no-jetstream-'));
    // As for the other embedded runs: Postgres started as root runs as the postgres user, who must pass through.
    await chmod(dataDir, 0o755);
    try {
      const run = refusedStart({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), NATS_URL: withoutJetStream.url, PORT: String(await freePort()), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' });
      expect(run.status).toBe(1);
      expect(run.output).toContain('runs without JetStream');
      expect(run.output).not.toContain('embedded');
      expect(await readdir(dataDir)).toEqual([]);
    } finally {
      await withoutJetStream.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a gateway port that is already taken before it starts anything, rather than call another server its gateway', async () => {
    // What a second `npm start` meets while the first runs: something on PORT that may even answer GET /health.
    const taken: Server = createServer((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'));
    await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const run = refusedStart({ DATABASE_URL: databaseUrl, NATS_URL: nats.url, PORT: String(port), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' });
      expect(run.status).toBe(1);
      expect(run.output).toContain(`PORT ${port} is already in use`);
      expect(run.output).not.toContain('[mailroom] ready');
      expect(run.output).not.toContain('migrations');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  describe('with its embedded Postgres under DATA_DIR', () => {
    let dataDir: string;
    let postgresPort: number;
    let port: number;
    let launcher: ChildProcess;
    let output = '';

    beforeAll(async () => {
      [port, postgresPort] = [await freePort(), await freePort()];
      dataDir = await mkdtemp(join(tmpdir(), 'mailroom-start-'));
      // As root, Postgres runs as the postgres user, who must be able to reach its data directory.
      await chmod(dataDir, 0o755);
      // In a process group of its own, as in a terminal, where Ctrl-C signals the whole foreground group.
      launcher = spawn(process.execPath, ['dist/scripts/start.js'], {
        cwd: ROOT,
        detached: true,
        env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(postgresPort), NATS_URL: nats.url, PORT: String(port), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      launcherPid = launcher.pid!;
      launcher.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      launcher.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await eventually(() => output.includes('[mailroom] ready'), 90_000, 200).catch((error: Error) => {
        throw new Error(`${error.message}; the launcher wrote: ${output}`);
      });
    }, 120_000);

    afterAll(async () => {
      for (const { pid } of [...descendants(launcherPid), { pid: launcherPid }]) if (alive(pid)) process.kill(pid, 'SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    });

    it('refuses a second start on the same DATA_DIR, saying so, and leaves the first running', () => {
      const [otherPort, otherPostgresPort] = [port + 1, postgresPort + 1];
      const second = refusedStart({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(otherPostgresPort), NATS_URL: nats.url, PORT: String(otherPort), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' });
      expect(second.status).toBe(1);
      expect(second.output).toContain(`DATA_DIR ${dataDir} is in use by another Mailroom process (pid `);
      expect(second.output).not.toMatch(/^\s+at /m);
      return expect(fetch(`http://127.0.0.1:${port}/health`).then((response) => response.status)).resolves.toBe(200);
    });

    it('on Ctrl-C stops the apps before it stops Postgres, so their work in flight can commit', async () => {
      const stack = descendants(launcherPid);
      const apps = stack.filter(({ args }) => args.includes('dist/apps/')).map(({ pid }) => pid);
      expect(apps).toHaveLength(STACK_PROCESSES.length);

      // A connection of our own to the embedded Postgres: its loss marks when Postgres went down.
      const observer = new Client({ connectionString: `postgres://postgres:mailroom-local@127.0.0.1:${postgresPort}/mailroom` });
      await observer.connect();
      let postgresDownAt = 0;
      observer.on('error', () => (postgresDownAt ||= Date.now()));
      observer.on('end', () => (postgresDownAt ||= Date.now()));
      // The last moment some app was certainly alive. It is never later than the last app's real exit, so it
      // can only come after Postgres went down if an app outlived Postgres.
      let appLastSeenAt = Date.now();
      const watch = setInterval(() => {
        if (apps.some((pid) => alive(pid))) appLastSeenAt = Date.now();
      }, 5);
      try {
        const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
        // What a terminal does on Ctrl-C: SIGINT to every process of its foreground group at once.
        process.kill(-launcherPid, 'SIGINT');
        expect(await exited).toBe(0);
        await eventually(() => postgresDownAt > 0, 10_000);
        expect(apps.filter((pid) => alive(pid))).toEqual([]);
        expect(appLastSeenAt).toBeLessThanOrEqual(postgresDownAt);
        // Nothing it started outlives it: not an app, not Postgres, not nats-server.
        await eventually(() => stack.every(({ pid }) => !alive(pid)), 10_000);
      } finally {
        clearInterval(watch);
        await observer.end().catch(() => undefined);
      }
    }, 60_000);
  });
});

/**
 * The launcher itself killed (the OOM killer, `kill -9`): it cannot stop what it started, and the apps, the
 * embedded Postgres and nats-server lived on without it, serving on its ports until someone hunted them down.
 */
describe('npm start when its launcher is killed outright', () => {
  let dataDir: string;
  let start: ChildProcess;
  let stack: { pid: number; args: string }[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mailroom-killed-'));
    // As root, Postgres runs as the postgres user, who must be able to reach its data directory.
    await chmod(dataDir, 0o755);
  });

  afterAll(async () => {
    for (const { pid } of [...stack, { pid: start?.pid ?? 0 }]) if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stops everything the launcher started: the apps, the embedded Postgres and nats-server', async () => {
    const [port, postgresPort, natsPort] = [await freePort(), await freePort(), await freePort()];
    start = spawn(process.execPath, ['dist/scripts/start.js'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(postgresPort), NATS_URL: `nats://127.0.0.1:${natsPort}`, PORT: String(port), HEALTH_PORT: '0', DKIM_DNS_BIND: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    start.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    start.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => start.once('exit', (code) => resolve(code)));
    await eventually(() => output.includes('[mailroom] ready'), 90_000, 200).catch((error: Error) => {
      throw new Error(`${error.message}; the launcher wrote: ${output}`);
    });

    stack = descendants(start.pid!);
    const launcher = stack.find(({ args }) => args.includes('launch-stack.js'))!;
    expect(stack.filter(({ args }) => args.includes('dist/apps/'))).toHaveLength(STACK_PROCESSES.length);
    expect(stack.some(({ args }) => args.startsWith('nats-server'))).toBe(true);
    expect(stack.some(({ args }) => /\bpostgres\b.*-D/.test(args))).toBe(true);

    process.kill(launcher.pid, 'SIGKILL');

    // npm start reports the failure, and nothing the launcher started outlives it.
    expect(await exited).toBe(1);
    await eventually(() => stack.every(({ pid }) => !alive(pid)), 30_000, 100).catch(() => {
      throw new Error(`still running: ${stack.filter(({ pid }) => alive(pid)).map(({ args }) => args).join('; ')}`);
    });
    expect(await fetch(`http://127.0.0.1:${port}/health`).then(() => true, () => false)).toBe(false);
  }, 150_000);
});
