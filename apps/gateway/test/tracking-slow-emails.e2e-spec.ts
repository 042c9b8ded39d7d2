import { connect, NatsConnection } from 'nats';
import { trackingTokensFromConfig } from '@mailroom/auth';
import { TrackingSubjects } from '@mailroom/contracts';
import { eventually, startStack, Stack } from '@mailroom/testing';

const RPC_TIMEOUT_MS = 3000;

/**
 * A reader clicking a tracked link must not wait on the emails service: one
 * that takes the hit and stays silent (overloaded, stuck on its database)
 * would otherwise hold every redirect and pixel for RPC_TIMEOUT_MS.
 */
describe('tracking while the emails service does not answer', () => {
  let stack: Stack;
  let silent: NatsConnection;
  const heard: string[] = [];
  const tokens = trackingTokensFromConfig({ NODE_ENV: 'test', ENCRYPTION_KEY: null });

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'gateway'], env: { RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) } });
    // Takes the tracking requests in place of the emails service, and never answers.
    silent = await connect({ servers: stack.nats.url });
    for (const subject of [TrackingSubjects.open, TrackingSubjects.click]) silent.subscribe(subject, { callback: (_error, message) => void heard.push(message.subject) });
    await silent.flush();
  }, 120000);
  afterAll(async () => {
    await silent?.close();
    await stack?.stop();
  });

  const timed = async (url: string) => {
    const started = Date.now();
    const response = await fetch(url, { redirect: 'manual' });
    await response.arrayBuffer();
    return { response, ms: Date.now() - started };
  };

  it('redirects a click and answers the pixel at once, the hit still sent to be recorded', async () => {
    const click = await timed(`${stack.baseUrl}/t/c/${tokens.sign({ emailId: 'email_01JB0000000000000000000000', kind: 'click', url: 'https://acme.test/pricing' })}`);
    expect(click.response.status).toBe(302);
    expect(click.response.headers.get('location')).toBe('https://acme.test/pricing');
    expect(click.ms).toBeLessThan(RPC_TIMEOUT_MS / 2);

    const pixel = await timed(`${stack.baseUrl}/t/o/${tokens.sign({ emailId: 'email_01JB0000000000000000000000', kind: 'open' })}.gif`);
    expect(pixel.response.status).toBe(200);
    expect(pixel.ms).toBeLessThan(RPC_TIMEOUT_MS / 2);

    await eventually(() => heard.length === 2);
    expect([...heard].sort()).toEqual([TrackingSubjects.click, TrackingSubjects.open].sort());
  });
});
