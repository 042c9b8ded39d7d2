import { createTestCertificates, createTestDatabase, dropTestDatabase, PrivateNats, Stack, startAppProcess, startPrivateNats, startStack } from '@mailroom/testing';

const certificates = createTestCertificates();
const SERVER_TLS = ['--tls', '--tlscert', certificates.serverCertFile, '--tlskey', certificates.serverKeyFile];
const MUTUAL_TLS = [...SERVER_TLS, '--tlscacert', certificates.caFile, '--tlsverify'];

/**
 * By host name: nats.js checks the certificate of a server given by IP
 * address against "localhost" (it upgrades its socket to TLS without a host).
 */
function tlsUrl(nats: PrivateNats): string {
  return `tls://localhost:${nats.port}`;
}

/** NATS over TLS: a tls:// URL, the CA that signed the server's certificate, and a client certificate. */
describe('apps on a NATS server that requires TLS', () => {
  describe.each([
    ['the server\'s CA', SERVER_TLS, { NATS_TLS_CA_FILE: certificates.caFile }],
    ['a client certificate (mutual TLS)', MUTUAL_TLS, { NATS_TLS_CA_FILE: certificates.caFile, NATS_TLS_CERT_FILE: certificates.clientCertFile, NATS_TLS_KEY_FILE: certificates.clientKeyFile }],
  ])('with %s', (_, tls, env) => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ apps: ['keys', 'gateway'], natsAccess: { tls }, natsUrl: tlsUrl, env });
    });
    afterAll(() => stack?.stop());

    it('boots the apps, and the keys service answers the gateway through the server', async () => {
      expect((await stack.api.get('/v1/api-keys')).status).toBe(200);
    });
  });

  describe('as processes', () => {
    let databaseUrl: string;
    beforeAll(async () => {
      databaseUrl = await createTestDatabase();
    });
    afterAll(() => dropTestDatabase(databaseUrl).catch(() => undefined));

    async function bootFailure(tls: string[], env: Record<string, string>, url: (nats: PrivateNats) => string): Promise<string> {
      const nats = await startPrivateNats(tls.length ? { tls } : undefined);
      try {
        const keys = startAppProcess('keys', { NATS_URL: url(nats), DATABASE_URL: databaseUrl, HEALTH_PORT: '0', ...env });
        expect(await keys.exited).toEqual({ code: 1, signal: null });
        return keys.stderr();
      } finally {
        await nats.destroy();
      }
    }

    it('refuses a server whose certificate the given CAs did not sign', async () => {
      const stderr = await bootFailure(SERVER_TLS, {}, tlsUrl);
      expect(stderr).toMatch(/\[keys\] failed to start: cannot use NATS at tls:\/\/localhost:\d+: its TLS certificate was not accepted \(unable to verify the first certificate\); set NATS_TLS_CA_FILE/);
    });

    it('refuses a server that does not speak TLS when the URL is tls://', async () => {
      const stderr = await bootFailure([], { NATS_TLS_CA_FILE: certificates.caFile }, (nats) => nats.bareUrl);
      expect(stderr).toContain('[keys] failed to start: cannot use NATS at nats://127.0.0.1:');
      expect(stderr).toMatch(/tls/i);
    });
  });
});
