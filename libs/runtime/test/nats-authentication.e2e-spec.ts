import { createMigratedTestDatabase, dropTestDatabase, eventually, freePort, PrivateNats, PROCESS_READY_TIMEOUT_MS, PrivateNatsAccess, Stack, startAppProcess, startPrivateNats, startStack } from '@mailroom/testing';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const PASSWORD = 'n4ts-s3cret-pass';
const TOKEN = 'n4ts-s3cret-token';

/** A NATS server that requires credentials: the apps authenticate with those given in NATS_URL. */
describe('apps on a NATS server that requires authentication', () => {
  const accesses: [string, PrivateNatsAccess][] = [
    ['a user and password', { user: 'mailroom', pass: PASSWORD }],
    ['a token', { token: TOKEN }],
  ];
  describe.each(accesses)('with %s in NATS_URL', (_, natsAccess) => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ apps: ['keys', 'domains', 'gateway'], natsAccess, env: { DKIM_DNS_BIND: 'off' } });
    });
    afterAll(() => stack?.stop());

    it('boots the apps, and the keys service answers the gateway through the server', async () => {
      const response = await stack.api.get('/v1/api-keys');
      expect(response.status).toBe(200);
    });

    it('lets the CLI ask the domains service for the DKIM zone', async () => {
      // Not spawnSync: the domains service runs in this process and must answer meanwhile.
      const cli = spawn(process.execPath, ['dist/scripts/cli.js', 'domains', 'zone-export'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', NATS_URL: stack.nats.url } });
      const output = { stdout: '', stderr: '' };
      cli.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
      cli.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
      const status = await new Promise<number | null>((resolve) => cli.once('close', resolve));
      expect(output.stderr).toBe('');
      expect(output.stdout).toContain('$ORIGIN dkim.mailroom.localhost.');
      expect(status).toBe(0);
    });
  });

  describe('as processes', () => {
    let nats: PrivateNats;
    let databaseUrl: string;
    beforeAll(async () => {
      nats = await startPrivateNats({ user: 'mailroom', pass: PASSWORD });
      databaseUrl = await createMigratedTestDatabase();
    });
    afterAll(async () => {
      await nats?.destroy();
      await dropTestDatabase(databaseUrl).catch(() => undefined);
    });

    it('fails to boot without the credentials, naming NATS and the authorization error, and exits 1', async () => {
      const keys = startAppProcess('keys', { NATS_URL: nats.bareUrl, DATABASE_URL: databaseUrl, HEALTH_PORT: '0' });
      expect(await keys.exited).toEqual({ code: 1, signal: null });
      expect(keys.stderr()).toContain(`[keys] failed to start: NATS at ${nats.bareUrl} refused to let this app in ('Authorization Violation'); check the credentials in NATS_URL or NATS_CREDS_FILE`);
    });

    it('fails to boot with a wrong password, without writing it anywhere', async () => {
      const wrong = nats.url.replace(PASSWORD, 'wrong-pass-1234');
      const keys = startAppProcess('keys', { NATS_URL: wrong, DATABASE_URL: databaseUrl, HEALTH_PORT: '0', LOG_LEVEL: 'trace' });
      expect(await keys.exited).toEqual({ code: 1, signal: null });
      expect(keys.stderr()).toContain("refused to let this app in ('Authorization Violation')");
      expect(keys.stderr() + keys.stdout()).not.toContain('wrong-pass-1234');
    });

    it('never logs the password of a server it authenticated to, at boot or on a reconnect', async () => {
      const healthPort = await freePort();
      const keys = startAppProcess('keys', { NATS_URL: nats.url, DATABASE_URL: databaseUrl, HEALTH_PORT: String(healthPort), LOG_LEVEL: 'trace' });
      try {
        const ready = () => fetch(`http://127.0.0.1:${healthPort}/health/ready`).then((response) => response.status === 200, () => false);
        await eventually(ready, PROCESS_READY_TIMEOUT_MS);
        // A reconnect is logged too, naming the server it reconnected to.
        await nats.restart();
        await eventually(() => /reconnect/i.test(keys.stdout()), 15000);
        await eventually(ready, 15000);
        keys.child.kill('SIGTERM');
        expect(await keys.exited).toEqual({ code: 0, signal: null });
        expect(keys.stderr() + keys.stdout()).not.toContain(PASSWORD);
      } finally {
        keys.child.kill('SIGKILL');
      }
    }, PROCESS_READY_TIMEOUT_MS + 60_000);
  });
});
