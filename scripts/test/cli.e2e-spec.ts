import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, dropTestDatabase, freePort, PrivateNats, startPrivateNats } from '@mailroom/testing';

const ROOT = join(__dirname, '../..');

/** `npm run -s cli -- …` as a user runs it, from dist/. */
const cli = (args: string[], env: Record<string, string> = {}) => {
  const run = spawnSync(process.execPath, ['dist/scripts/cli.js', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
};

/** The same, leaving this process's event loop free while it runs. */
const cliAsync = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['dist/scripts/cli.js', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (status) => resolve({ status, stderr }));
  });

describe('the bootstrap CLI', () => {
  it('answers --help (and -h, help) with its usage on stdout and exit 0, as asking for help is no mistake', () => {
    for (const args of [['--help'], ['-h'], ['help'], ['keys', 'create', '--help']]) {
      const run = cli(args);
      expect({ args, status: run.status, stderr: run.stderr }).toEqual({ args, status: 0, stderr: '' });
      expect(run.stdout).toContain('npm run -s cli -- keys create --name NAME');
    }
  });

  it('answers an unknown command with its usage on stderr and exit 2', () => {
    const run = cli(['keys', 'delete']);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('npm run -s cli -- keys create --name NAME');
  });

  it('answers a flag or argument a command does not take with what is wrong, its usage on stderr and exit 2, rather than ignore it', () => {
    for (const args of [['config', 'table', '--markdown'], ['config', 'table', 'extra'], ['domains', 'zone-export', 'example.com'], ['keys', 'create', '--name', 'x', '--perms', 'emails:send']]) {
      const run = cli(args);
      expect({ args, status: run.status, stdout: run.stdout }).toEqual({ args, status: 2, stdout: '' });
      expect(run.stderr).toMatch(/^(Unknown option|Unexpected argument)/);
      expect(run.stderr).toContain('npm run -s cli -- keys create --name NAME');
    }
  });

  it('refuses a --permissions that names no permission (an unset shell variable), rather than create a key that can do nothing', () => {
    for (const permissions of ['', ' , ']) {
      const run = cli(['keys', 'create', '--name', 'ci', '--permissions', permissions], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
      expect({ permissions, status: run.status, stdout: run.stdout }).toEqual({ permissions, status: 2, stdout: '' });
      expect(run.stderr).toContain('--permissions names no permission');
    }
  });

  describe('domains zone-export without the running stack', () => {
    let nats: PrivateNats;
    beforeAll(async () => {
      nats = await startPrivateNats({ user: 'mailroom', pass: 'zone-secret' });
    });
    afterAll(() => nats?.destroy());

    it('says that nothing answers at NATS_URL, naming it without its credentials, rather than CONNECTION_REFUSED', async () => {
      const run = cli(['domains', 'zone-export'], { NATS_URL: `nats://mailroom:zone-secret@127.0.0.1:${await freePort()}` });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/^cannot reach NATS at NATS_URL=nats:\/\/127\.0\.0\.1:\d+ .*start the stack/);
      expect(run.stderr).not.toContain('zone-secret');
    });

    it('says that no domains service answers on that NATS, rather than 503', () => {
      const run = cli(['domains', 'zone-export'], { NATS_URL: nats.url });
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`no domains service answers on the NATS at NATS_URL=nats://127.0.0.1:${nats.port}`);
      expect(run.stderr).not.toContain('zone-secret');
    });
  });

  describe('keys create with the embedded Postgres under a directory closed to others', () => {
    // mkdtemp makes it 0700, as a root's home (/root) is: the clone's default DATA_DIR, .data, lies under it.
    const closed = mkdtempSync(join(tmpdir(), 'mailroom-closed-'));
    afterAll(() => rmSync(closed, { recursive: true, force: true }));

    it('as root, names the directory the postgres OS user cannot pass and what to do, rather than quote initdb', async () => {
      const run = cli(['keys', 'create', '--name', 'first'], { DATA_DIR: join(closed, 'data'), EMBEDDED_PG_PORT: String(await freePort()) });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      if (process.getuid?.() === 0) {
        expect(run.stderr).toContain(`runs as the postgres OS user, which cannot enter ${closed} (mode 700)`);
        expect(run.stderr).toContain('DATA_DIR');
      } else {
        // Not root, Postgres runs as this user, who owns the directory: it starts, and the keys schema is what is missing.
        expect(run.stderr).toContain('the keys schema is not migrated');
      }
    });
  });

  it('keys create says when what answers on EMBEDDED_PG_PORT is not its embedded Postgres, rather than quote the driver', async () => {
    // Taken for one another `npm start` left running, it got "Connection terminated unexpectedly" from node-postgres.
    const sockets = new Set<Socket>();
    const stranger = createServer((socket) => {
      sockets.add(socket.on('error', () => undefined));
      socket.end('hello\n');
    });
    const port = await freePort();
    await new Promise<void>((resolve) => stranger.listen(port, '127.0.0.1', resolve));
    const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-stranger-'));
    try {
      // Not spawnSync: the server above answers from this process's event loop.
      const run = await cliAsync(['keys', 'create', '--name', 'first'], { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) });
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`Something answers on EMBEDDED_PG_PORT ${port} that is not an embedded Postgres of Mailroom's`);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => stranger.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe('keys create on a database the migrations have not reached', () => {
    let databaseUrl: string;
    beforeAll(async () => {
      databaseUrl = await createTestDatabase();
    });
    afterAll(() => dropTestDatabase(databaseUrl));

    it('says to run the migrations first rather than quote Postgres', () => {
      const run = cli(['keys', 'create', '--name', 'first'], { DATABASE_URL: databaseUrl });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('the keys schema is not migrated');
      expect(run.stderr).toContain('npm run migrate');
    });
  });
});
