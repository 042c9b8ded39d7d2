import type { Consumer, ConsumerMessages, JsMsg } from 'nats';
import { ByteBudget } from './byte-budget';
import { MessageSource, PULL_EXPIRES_MS } from './stream-reader';

/**
 * The messages nats.js asks for in a fetch() given max_bytes (it takes one of
 * max_messages and max_bytes, and sends 100 with max_bytes). The server says
 * nothing when it has sent them all, and nats.js would wait for the fetch's
 * expiry: a fetch is ended here once that many have come.
 */
const FETCH_BATCH = 100;
/** What nats-server counts for a message beyond its payload limit (subject, reply subject, headers) when it fills a pull's max_bytes. */
const MESSAGE_OVERHEAD_BYTES = 4096;

/**
 * A durable consumer's messages, pulled one fetch() at a time and only for as
 * many bytes as `budget` has room for, so the messages its caller holds (taken
 * into the budget on arrival, given back once settled) never exceed the limit.
 * consume() cannot do that: it asks for more as messages arrive, not as they
 * are handled, so everything the consumer's ack window let through (1,000
 * events, up to 1 MB each) piled up in memory and the dispatcher grew to
 * 1.8 GB. A pull waits until there is room for the largest message the server
 * takes (`largestMessage`, its max_payload) or nothing is held, so one event
 * larger than the whole budget still goes through, alone. A fetch ends after
 * FETCH_BATCH messages, when the next one would not fit, or after
 * PULL_EXPIRES_MS; the next is asked for at once if there is room.
 * A stream or durable that is gone fails the fetch (no responders, consumer
 * deleted), which ends the iteration for StreamReader to set both up again.
 */
export function pullWithinBudget(consumer: Consumer, budget: ByteBudget<JsMsg>, largestMessage: number): MessageSource {
  return new BudgetedPulls(consumer, budget, largestMessage + MESSAGE_OVERHEAD_BYTES);
}

class BudgetedPulls implements MessageSource {
  private stopped = false;
  private current?: ConsumerMessages;
  private wakeOnStop?: () => void;
  private readonly stopping = new Promise<void>((resolve) => (this.wakeOnStop = resolve));

  constructor(
    private readonly consumer: Consumer,
    private readonly budget: ByteBudget<JsMsg>,
    private readonly smallestPull: number,
  ) {}

  stop(): void {
    this.stopped = true;
    this.current?.stop();
    this.wakeOnStop?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<JsMsg> {
    while (!this.stopped) {
      const room = this.budget.limit - this.budget.held;
      if (room < this.smallestPull && this.budget.held > 0) {
        await Promise.race([this.budget.nextRelease(), this.stopping]);
        continue;
      }
      this.current = await this.consumer.fetch({ max_bytes: Math.max(room, this.smallestPull), expires: PULL_EXPIRES_MS });
      if (this.stopped) this.current.stop();
      let received = 0;
      for await (const message of this.current) {
        yield message;
        received += 1;
        if (received === FETCH_BATCH) this.current.stop();
      }
    }
  }
}
