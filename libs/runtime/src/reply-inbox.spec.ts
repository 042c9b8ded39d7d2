import { Events, Msg, NatsConnection, Status } from 'nats';
import { NoReplyError, ReplyInbox } from './reply-inbox';

/** A connection whose status events the test sends: the one part of NATS a disconnect touches here. */
function fakeConnection() {
  const waiting: Array<(status: IteratorResult<Status>) => void> = [];
  const backlog: Status[] = [];
  let ended = false;
  const published: Array<{ subject: string; reply?: string }> = [];
  const connection = {
    subscribe: () => ({ unsubscribe: () => undefined }),
    publish: (subject: string, _data: unknown, options: { reply?: string }) => void published.push({ subject, reply: options.reply }),
    status: () => ({
      [Symbol.asyncIterator]: () => ({
        next: () =>
          new Promise<IteratorResult<Status>>((resolve) => {
            const next = backlog.shift();
            if (next) resolve({ value: next, done: false });
            else if (ended) resolve({ value: undefined, done: true });
            else waiting.push(resolve);
          }),
      }),
    }),
  };
  const emit = (status: Status) => {
    const resolve = waiting.shift();
    if (resolve) resolve({ value: status, done: false });
    else backlog.push(status);
  };
  const end = () => {
    ended = true;
    for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
  };
  return { connection: connection as unknown as NatsConnection, emit, end, published };
}

describe(ReplyInbox.name, () => {
  it('fails the requests waiting for a reply when the connection drops, at once rather than at their timeout: the replies are lost with it', async () => {
    const nats = fakeConnection();
    const inbox = new ReplyInbox(nats.connection);
    const waiting = inbox.request('keys.verify', 'x', 60_000);
    const outcome = waiting.then(
      () => 'answered',
      (error: unknown) => error,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(nats.published).toHaveLength(1);

    nats.emit({ type: Events.Disconnect, data: 'nats://127.0.0.1:4222' });
    const failed = await Promise.race([outcome, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1000))]);
    expect(failed).toBeInstanceOf(NoReplyError);
    expect((failed as NoReplyError).reason).toBe('disconnected');

    // A request made after the drop is sent once the connection is back (nats.js holds it) and waits as usual.
    const later = inbox.request('keys.verify', 'y', 60_000);
    nats.emit({ type: Events.Reconnect, data: 'nats://127.0.0.1:4222' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(nats.published).toHaveLength(2);
    inbox.close();
    await expect(later).rejects.toBeInstanceOf(NoReplyError);
    nats.end();
  });
});
