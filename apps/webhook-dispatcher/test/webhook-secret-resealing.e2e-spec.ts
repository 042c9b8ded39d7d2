import { randomBytes } from 'node:crypto';
import { SecretBox } from '@mailroom/auth';
import { verifyWebhookSignature } from '@mailroom/contracts';
import { EnvName } from '@mailroom/config';
import { eventually, scrapeMetrics } from '@mailroom/testing';
import { webhookSuite } from './support/webhook-suite';

/**
 * ENCRYPTION_KEY changes from A to B with A in ENCRYPTION_KEY_PREVIOUS: the secrets sealed under A sign at once,
 * the dispatcher seals them again under B (the secret before a rotation too), and once it has, A can go.
 */
describe('webhook secrets across an ENCRYPTION_KEY rotation', () => {
  const keyA = randomBytes(32).toString('base64');
  const keyB = randomBytes(32).toString('base64');
  const dispatcherEnv: Partial<Record<EnvName, string>> = { ENCRYPTION_KEY: keyA };
  const suite = webhookSuite({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50' }, undefined, dispatcherEnv);

  async function restartDispatcherWith(env: Partial<Record<EnvName, string>>): Promise<void> {
    await suite.stack.stopApp('webhook-dispatcher');
    for (const name of Object.keys(dispatcherEnv) as EnvName[]) delete dispatcherEnv[name];
    Object.assign(dispatcherEnv, env);
    await suite.stack.startApp('webhook-dispatcher');
  }

  /** Which of `secrets` verify the request the next event brings. */
  async function verifiedByNextDelivery(secrets: string[]): Promise<boolean[]> {
    const before = suite.receiver.requests.length;
    await suite.events.publish('email.delivered');
    await eventually(() => suite.receiver.requests.length === before + 1);
    const request = suite.receiver.requests[before];
    return secrets.map((secret) => verifyWebhookSignature(request.rawBody, String(request.headers['service-signature']), secret));
  }

  async function gauge(): Promise<number | undefined> {
    return (await scrapeMetrics(suite.stack.opsUrl('webhook-dispatcher'))).find('mailroom_secrets_sealed_with_previous_key', { kind: 'webhook_secret' })[0]?.value;
  }

  it('signs at once with secrets sealed under the previous key, seals them again under the new one, and keeps signing without the old key', async () => {
    const webhook = await suite.fixtures.create(suite.receiver.url());
    const rotated = await suite.stack.api.post(`/v1/webhooks/${webhook.id}/secret/rotate`, {});
    expect(rotated.status).toBe(200);
    const secrets = [rotated.body.secret as string, webhook.secret];
    const underA = await suite.fixtures.storedSecrets(webhook.id);
    const boxA = new SecretBox(keyA);
    const boxB = new SecretBox(keyB);
    expect(boxA.decrypt(underA.secret_sealed, webhook.id)).toBe(secrets[0]);
    expect(boxA.decrypt(underA.previous_secret_sealed ?? '', webhook.id)).toBe(secrets[1]);

    await restartDispatcherWith({ ENCRYPTION_KEY: keyB, ENCRYPTION_KEY_PREVIOUS: keyA });
    expect(await verifiedByNextDelivery(secrets)).toEqual([true, true]);
    const underB = await eventually(async () => {
      const stored = await suite.fixtures.storedSecrets(webhook.id);
      try {
        return { current: boxB.decrypt(stored.secret_sealed, webhook.id), previous: boxB.decrypt(stored.previous_secret_sealed ?? '', webhook.id) };
      } catch {
        return false;
      }
    });
    expect(underB).toEqual({ current: secrets[0], previous: secrets[1] });
    expect(await eventually(async () => (await gauge()) === 0)).toBe(true);

    await restartDispatcherWith({ ENCRYPTION_KEY: keyB });
    expect(await verifiedByNextDelivery(secrets)).toEqual([true, true]);
    expect(await suite.stack.api.get(`/v1/webhooks/${webhook.id}/secret`)).toMatchObject({ status: 200, body: { secret: secrets[0] } });
  });
});
