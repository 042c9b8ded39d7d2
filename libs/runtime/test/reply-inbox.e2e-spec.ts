import type { ClientProxy } from '@nestjs/microservices';
import { eventually, startPrivateNats, PrivateNats } from '@mailroom/testing';
import { connect, NatsConnection, StringCodec } from 'nats';
import { NoReplyError, ReplyInbox } from '../src/reply-inbox';
import { natsRequestDuration } from '../src/metrics';
import { RpcClient } from '../src/rpc-client';

type GarbledRpc = { 'garbled.answer': { payload: { ctx: { requestId: string } }; reply: unknown } };

const text = StringCodec();

describe('ReplyInbox against a real nats-server', () => {
  let nats: PrivateNats;
  let requester: NatsConnection;
  let responder: NatsConnection;

  beforeAll(async () => {
    nats = await startPrivateNats();
    requester = await connect({ servers: nats.url });
    responder = await connect({ servers: nats.url });
  });

  afterAll(async () => {
    await requester.close();
    await responder.close();
    await nats.destroy();
  });

  it('matches each reply to its own request when many are in flight and answered out of order', async () => {
    const held: { reply: string; body: string }[] = [];
    const subscription = responder.subscribe('echo.reversed', {
      callback: (_error, message) => {
        held.push({ reply: message.reply!, body: text.decode(message.data) });
        if (held.length === 200) for (const entry of held.reverse()) responder.publish(entry.reply, text.encode(`re:${entry.body}`));
      },
    });
    await responder.flush();
    const inbox = new ReplyInbox(requester);

    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => inbox.request('echo.reversed', `m${i}`, 5000)));

    expect(replies.map((reply) => text.decode(reply.data))).toEqual(Array.from({ length: 200 }, (_, i) => `re:m${i}`));
    subscription.unsubscribe();
  });

  it('fails fast with no_responders when nobody subscribes', async () => {
    const inbox = new ReplyInbox(requester);
    const started = Date.now();
    const failure = await inbox.request('nobody.listens', 'x', 10000).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NoReplyError);
    expect((failure as NoReplyError).reason).toBe('no_responders');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('fails with timeout when a subscriber never answers, and ignores the late reply', async () => {
    let lateReply: string | undefined;
    const subscription = responder.subscribe('slow.service', { callback: (_error, message) => (lateReply = message.reply) });
    await responder.flush();
    const inbox = new ReplyInbox(requester);

    const failure = await inbox.request('slow.service', 'x', 100).catch((error: unknown) => error);
    expect((failure as NoReplyError).reason).toBe('timeout');

    // On a loaded machine the request can time out before it has even reached the subscriber.
    responder.publish(await eventually(() => lateReply), text.encode('too late'));
    await responder.flush();
    const once = responder.subscribe('echo.once', { max: 1, callback: (_error, message) => message.respond(text.encode('fresh')) });
    await responder.flush();
    const next = inbox.request('echo.once', 'y', 2000);
    // Only one of the two requests above was ever pending: the late reply must not settle the new one.
    expect(text.decode((await next).data)).toBe('fresh');
    subscription.unsubscribe();
    once.unsubscribe();
  });

  /** What RpcClient, built on the inbox, makes of an answer it cannot read. */
  describe('RpcClient given an answer that is not a reply', () => {
    const errorsCounted = async (): Promise<number> =>
      (await natsRequestDuration.get()).values.find(
        (value) => value.metricName === 'mailroom_nats_request_duration_seconds_count' && value.labels.subject === 'garbled.answer' && value.labels.outcome === 'error',
      )?.value ?? 0;

    it.each([
      ['not JSON', 'this is not JSON', '16 bytes that are not JSON'],
      ['JSON but not an object', 'null', 'JSON that is no object \\(null\\)'],
    ])('fails naming the service and the subject, without quoting the answer, when it is %s, and counts the request as an error', async (_what, answer, expected) => {
      const subscription = responder.subscribe('garbled.answer', { callback: (_error, message) => message.respond(Buffer.from(answer)) });
      await responder.flush();
      const client = new RpcClient<GarbledRpc>({ connect: async () => requester } as unknown as ClientProxy, 2000, 'garbling');
      const before = await errorsCounted();

      await expect(client.request('garbled.answer', { ctx: { requestId: 'r1' } })).rejects.toThrow(new RegExp(`^The garbling service answered garbled\\.answer with something that is not a reply: ${expected}$`));
      expect(await errorsCounted()).toBe(before + 1);
      subscription.unsubscribe();
    });
  });
});
