import { Stack, StackOptions, startStack, startTestDns, TestDns } from '@mailroom/testing';
import { EventPublisher } from './event-publisher';
import { WebhookFixtures } from './webhook-fixtures';
import { WebhookReceiver } from './webhook-receiver';

/** What a delivery suite works with; filled in by the hooks webhookSuite() registers. */
export interface WebhookSuite {
  stack: Stack;
  events: EventPublisher;
  fixtures: WebhookFixtures;
  /** A fresh receiver for each test. */
  receiver: WebhookReceiver;
  /** The loopback DNS server the dispatcher resolves webhook hosts through (DNS_SERVERS), when the suite asked for one. */
  dns: TestDns;
}

/**
 * Boots keys, the dispatcher and the gateway once for the describe block it is called in, with this
 * environment, and gives each test a fresh receiver; each test's webhooks are deleted after it. With `dns`,
 * a loopback DNS server, filled by it before the boot, is the dispatcher's DNS_SERVERS. `dispatcherEnv` is the
 * dispatcher's own environment over `env`, read at each (re)start, so a test may change it between stopApp and startApp.
 */
export function webhookSuite(env: StackOptions['env'], dns?: (server: TestDns) => void, dispatcherEnv: StackOptions['env'] = {}): WebhookSuite {
  const suite = {} as WebhookSuite;
  beforeAll(async () => {
    if (dns) {
      suite.dns = await startTestDns();
      dns(suite.dns);
    }
    suite.stack = await startStack({
      apps: ['keys', 'webhook-dispatcher', 'gateway'],
      env: dns ? Object.assign({}, env, { DNS_SERVERS: suite.dns.address }) : env,
      appEnv: { 'webhook-dispatcher': dispatcherEnv },
    });
    suite.events = await EventPublisher.connect(suite.stack.nats.url);
    suite.fixtures = new WebhookFixtures(suite.stack);
  });
  beforeEach(async () => {
    suite.receiver = await new WebhookReceiver().start();
  });
  afterEach(async () => {
    await suite.fixtures.cleanup();
    await suite.receiver.stop();
  });
  afterAll(async () => {
    await suite.events?.close();
    await suite.stack?.stop();
    await suite.dns?.stop();
  });
  return suite;
}
