import { createInbox, Events, Msg, MsgHdrs, NatsConnection, Subscription } from 'nats';
import { LoopTurnQueue } from './loop-turn-queue';

export type ReplyFailure = 'timeout' | 'no_responders' | 'disconnected';

const REASON_TEXT: Record<ReplyFailure, string> = { timeout: 'no reply in time', no_responders: 'no responders', disconnected: 'connection lost before the reply' };

/** A request that got no usable reply: nobody listens on the subject, or nobody answered in time. */
export class NoReplyError extends Error {
  constructor(readonly reason: ReplyFailure, subject: string) {
    super(`${REASON_TEXT[reason]} on ${subject}`);
  }
}

interface PendingReply {
  resolve(message: Msg): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  subject: string;
}

/**
 * Request-reply over one wildcard inbox per connection. nats.js's own
 * request() does the same muxing, but builds two Error objects per call (an
 * async trace and a "cancelled" rejection after every reply), which cost the
 * gateway about a tenth of its CPU on the hot path; here a request costs one
 * publish, one map entry and one timer.
 */
export class ReplyInbox {
  private readonly prefix = `${createInbox()}.`;
  private readonly pending = new Map<string, PendingReply>();
  private readonly subscription: Subscription;
  private sequence = 0;
  /** Requests are published after the turn's I/O phase, so the requests of one turn share a socket write. */
  private readonly publishes = new LoopTurnQueue();

  constructor(private readonly connection: NatsConnection) {
    this.subscription = connection.subscribe(`${this.prefix}*`, { callback: (error, message) => error || this.settle(message) });
    void this.failPendingOnDisconnect();
  }

  /**
   * Core NATS does not keep messages for a subscriber that is away: a reply
   * sent while the connection is down is gone, so the requests waiting then
   * fail at once instead of at their timeout (RPC_TIMEOUT_MS of a caller
   * waiting for a 503 it could have had at once). Requests made while it is
   * down are sent when it is back (nats.js holds them) and wait as usual.
   */
  private async failPendingOnDisconnect(): Promise<void> {
    for await (const status of this.connection.status()) {
      if (status.type !== Events.Disconnect) continue;
      for (const token of [...this.pending.keys()]) this.fail(token, 'disconnected');
    }
  }

  request(subject: string, data: string | Uint8Array, timeoutMs: number, headers?: MsgHdrs): Promise<Msg> {
    const token = (this.sequence++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(token, 'timeout'), timeoutMs);
      this.pending.set(token, { resolve, reject, timer, subject });
      this.publishes.push(() => this.publish(token, subject, data, headers));
    });
  }

  close(): void {
    this.publishes.clear();
    this.subscription.unsubscribe();
    for (const token of [...this.pending.keys()]) this.fail(token, 'no_responders');
  }

  private publish(token: string, subject: string, data: string | Uint8Array, headers?: MsgHdrs): void {
    try {
      this.connection.publish(subject, data, { reply: this.prefix + token, headers });
    } catch (error) {
      this.take(token)?.reject(error as Error);
    }
  }

  private settle(message: Msg): void {
    const token = message.subject.slice(this.prefix.length);
    // The server answers a request nobody subscribes to with a 503 status message.
    if (message.headers?.hasError && message.headers.code === 503) return this.fail(token, 'no_responders');
    const pending = this.take(token);
    pending?.resolve(message);
  }

  private fail(token: string, reason: ReplyFailure): void {
    const pending = this.take(token);
    pending?.reject(new NoReplyError(reason, pending.subject));
  }

  private take(token: string): PendingReply | undefined {
    const pending = this.pending.get(token);
    if (!pending) return undefined;
    clearTimeout(pending.timer);
    this.pending.delete(token);
    return pending;
  }
}
