import { startPrivateNats, PrivateNats } from '@mailroom/testing';
import { connect, NatsConnection, StringCodec } from 'nats';
import { NoReplyError, ReplyInbox } from '../src/reply-inbox';

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

    responder.publish(lateReply!, text.encode('too late'));
    await responder.flush();
    const once = responder.subscribe('echo.once', { max: 1, callback: (_error, message) => message.respond(text.encode('fresh')) });
    await responder.flush();
    const next = inbox.request('echo.once', 'y', 2000);
    // Only one of the two requests above was ever pending: the late reply must not settle the new one.
    expect(text.decode((await next).data)).toBe('fresh');
    subscription.unsubscribe();
    once.unsubscribe();
  });
});
