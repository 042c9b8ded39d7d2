import type { JsMsg } from 'nats';
import { settle } from './stream-message';

/** How long a received message is kept from redelivery at most: past it, a stuck handler lets its event go to another replica. */
export const HOLD_LIMIT_MS = 5 * 60_000;

/**
 * The messages a consumer has received and not yet settled, kept from being
 * redelivered while they wait for a handler or their handler works.
 * JetStream's AckWait runs from delivery, not from when a handler takes the
 * event: behind a handler slower than AckWait (or many slow ones in a row),
 * the same events came again while the first copies were queued or in the
 * handler, and were applied a second time (harmless, the handlers are
 * idempotent, but twice the work just when the consumer is behind). Each is
 * marked in progress (working()) every third of AckWait, for at most
 * `holdLimitMs`; if the process dies, the marks stop and JetStream
 * redelivers after AckWait as before.
 */
export class HeldMessages {
  private readonly receivedAt = new Map<JsMsg, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    ackWaitMs: number,
    private readonly holdLimitMs = HOLD_LIMIT_MS,
  ) {
    this.timer = setInterval(() => this.extend(), Math.max(100, Math.floor(ackWaitMs / 3)));
    this.timer.unref();
  }

  hold(message: JsMsg): void {
    this.receivedAt.set(message, Date.now());
  }

  release(message: JsMsg): void {
    this.receivedAt.delete(message);
  }

  close(): void {
    clearInterval(this.timer);
    this.receivedAt.clear();
  }

  private extend(): void {
    const now = Date.now();
    for (const [message, receivedAt] of this.receivedAt) {
      if (now - receivedAt > this.holdLimitMs) this.receivedAt.delete(message);
      else settle(() => message.working());
    }
  }
}
