import { startAppProcess } from '@mailroom/testing';

/** Port 1 is privileged and unused, so nothing answers there. */
const NOWHERE = 'nats://ops:hunter2@127.0.0.1:1';

/** An app that cannot start says why, naming what to fix, and exits with a status a supervisor can tell apart. */
describe('an app that cannot start', () => {
  it('names the NATS server it could not reach, without its credentials, and exits 1', async () => {
    const gateway = startAppProcess('gateway', { NATS_URL: NOWHERE, PORT: '0', HEALTH_PORT: '0' });
    expect(await gateway.exited).toEqual({ code: 1, signal: null });
    expect(gateway.stderr()).toContain('[gateway] failed to start: cannot use NATS at nats://127.0.0.1:1 (CONNECTION_REFUSED)');
    expect(gateway.stderr()).not.toContain('hunter2');
  });

  it('refuses connection strings it cannot parse without writing their passwords, exit 78', async () => {
    // Unencoded `/` in a password (as `openssl rand -base64` makes) leaves a URL that does not parse.
    const env = { DATABASE_URL: 'postgres://mailroom:pg/Secret1@127.0.0.1:5432/mailroom', NATS_URL: 'nats://app:nats/Secret2@127.0.0.1:4222', HEALTH_PORT: '0' };
    const emails = startAppProcess('emails', { DELIVERY_MODE: 'relay', SMTP_RELAY_URL: 'smtp://u:smtp/Secret3@relay.example.com:587', ...env });
    expect(await emails.exited).toEqual({ code: 78, signal: null });
    for (const variable of ['DATABASE_URL', 'NATS_URL', 'SMTP_RELAY_URL']) expect(emails.stderr()).toContain(`${variable} must be a URL`);
    expect(emails.stderr() + emails.stdout()).not.toMatch(/Secret1|Secret2|Secret3/);
  });

  it('reports relay mode without a relay as a configuration problem, exit 78', async () => {
    const emails = startAppProcess('emails', { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres', DELIVERY_MODE: 'relay', HEALTH_PORT: '0' });
    expect(await emails.exited).toEqual({ code: 78, signal: null });
    expect(emails.stderr()).toContain('SMTP_RELAY_URL is required when DELIVERY_MODE=relay');
  });

  it('reports production without ENCRYPTION_KEY as a configuration problem, exit 78, in every app that needs the key', async () => {
    const emails = startAppProcess('emails', { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres', NODE_ENV: 'production', HEALTH_PORT: '0' });
    const gateway = startAppProcess('gateway', { NODE_ENV: 'production', PORT: '0', HEALTH_PORT: '0' });
    for (const app of [emails, gateway]) {
      expect(await app.exited).toEqual({ code: 78, signal: null });
      expect(app.stderr()).toContain('ENCRYPTION_KEY is required when NODE_ENV=production');
    }
  });
});
