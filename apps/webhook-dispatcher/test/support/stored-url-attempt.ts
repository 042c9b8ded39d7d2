import type { WebhookSuite } from './webhook-suite';

/**
 * Makes a webhook whose stored URL is one the API would refuse now (made under another configuration, or before a
 * rule existed), sends it an event of `kind`, and gives the webhook and its delivery once that has failed.
 */
export async function failedAttemptAtStoredUrl(suite: WebhookSuite, storedUrl: string, kind: string): Promise<{ webhook: { id: string }; delivery: any }> {
  const webhook = await suite.fixtures.create('https://hooks.example.com/stored-before', [kind]);
  await suite.fixtures.overwriteStored(webhook.id, 'url', storedUrl);
  await suite.events.publish(kind);
  return { webhook, delivery: await suite.fixtures.firstDeliveryOnce(webhook.id, 'failed') };
}
