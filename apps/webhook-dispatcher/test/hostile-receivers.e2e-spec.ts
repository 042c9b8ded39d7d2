import { eventually } from '@mailroom/testing';
import { webhookSuite } from './support/webhook-suite';

/** Endpoints that misbehave at the HTTP level: every attempt must still end, within the timeout, and be recorded. */
describe('webhook delivery to misbehaving receivers', () => {
  const suite = webhookSuite({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '0s,200ms',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_POLL_MS: '50',
  });

  it('fails an attempt answered 101 Switching Protocols, and sends the event again on schedule', async () => {
    suite.receiver.reply = (_, index) => (index === 0 ? { raw: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n' } : { status: 200 });
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.delivered']);
    const event = await suite.events.publish('email.delivered');
    const delivery = await suite.fixtures.firstDeliveryOnce(webhook.id, 'succeeded', 20_000);
    expect(suite.receiver.eventIds()).toEqual([event.id, event.id]);
    expect(delivery.attemptLog.map((attempt: any) => attempt.responseCode)).toEqual([101, 200]);
    expect(delivery.attemptLog[0].error).toBe('endpoint answered 101');
  });

  it('fails an attempt whose answer starts with 200 but never finishes its body, once the timeout runs out', async () => {
    suite.receiver.reply = () => ({ raw: 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial' });
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.bounced']);
    await suite.events.publish('email.bounced');
    const delivery = await suite.fixtures.firstDeliveryOnce(webhook.id, 'failed', 20_000);
    expect(suite.receiver.requests).toHaveLength(2);
    expect(delivery.attemptLog.map((attempt: any) => [attempt.responseCode, attempt.error])).toEqual(Array(2).fill([null, 'no complete answer within 1000 ms']));
    expect(delivery.attemptLog.every((attempt: any) => attempt.durationMs >= 1000 && attempt.durationMs < 5000)).toBe(true);
  });

  it('closes a kept-alive connection once it has been idle a few seconds, even when the receiver never does', async () => {
    suite.receiver.keepIdleConnections();
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.opened']);
    await suite.events.publish('email.opened');
    await suite.fixtures.firstDeliveryOnce(webhook.id, 'succeeded');
    expect(await suite.receiver.openConnections()).toBe(1);
    // Every idle connection is a file descriptor held in the dispatcher: one per endpoint and slot, for ever.
    await eventually(async () => (await suite.receiver.openConnections()) === 0, 20_000);
  });
});
