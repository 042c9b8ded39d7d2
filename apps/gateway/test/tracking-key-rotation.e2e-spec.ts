import { randomBytes } from 'node:crypto';
import { TrackingTokens } from '@mailroom/auth';
import { EnvName } from '@mailroom/config';
import { startStack, Stack } from '@mailroom/testing';

/**
 * Tracking links are signed with a key derived from ENCRYPTION_KEY. After it changes from A to B, links in mail
 * already delivered were signed under A: they keep working while A is in ENCRYPTION_KEY_PREVIOUS, and only then.
 */
describe('tracking links across an ENCRYPTION_KEY rotation', () => {
  const keyA = randomBytes(32).toString('base64');
  const keyB = randomBytes(32).toString('base64');
  const gatewayEnv: Partial<Record<EnvName, string>> = { ENCRYPTION_KEY: keyB, ENCRYPTION_KEY_PREVIOUS: keyA };
  let stack: Stack;

  beforeAll(async () => {
    // No emails service: the gateway redirects before it passes the hit on, and a hit nobody takes is only logged.
    stack = await startStack({ apps: ['keys', 'gateway'], appEnv: { gateway: gatewayEnv } });
  }, 120000);
  afterAll(() => stack?.stop());

  const click = (tokens: TrackingTokens) => tokens.sign({ emailId: 'email_01JB0000000000000000000000', kind: 'click', url: 'https://acme.test/pricing' });
  const statusOf = async (token: string) => {
    const response = await fetch(`${stack.baseUrl}/t/c/${token}`, { redirect: 'manual' });
    await response.arrayBuffer();
    return { status: response.status, location: response.headers.get('location') };
  };

  it('redirects a link signed under the previous key while it is configured, and answers 404 once it is removed', async () => {
    const signedUnderA = click(new TrackingTokens(keyA));
    const signedUnderB = click(new TrackingTokens(keyB));
    expect(await statusOf(signedUnderA)).toEqual({ status: 302, location: 'https://acme.test/pricing' });
    expect(await statusOf(signedUnderB)).toEqual({ status: 302, location: 'https://acme.test/pricing' });
    expect((await statusOf(click(new TrackingTokens(randomBytes(32).toString('base64'))))).status).toBe(404);

    await stack.stopApp('gateway');
    delete gatewayEnv.ENCRYPTION_KEY_PREVIOUS;
    await stack.startApp('gateway');
    expect((await statusOf(signedUnderA)).status).toBe(404);
    expect(await statusOf(signedUnderB)).toEqual({ status: 302, location: 'https://acme.test/pricing' });
  });
});
