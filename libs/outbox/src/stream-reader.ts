import type { JsMsg } from 'nats';

/** How long to wait before subscribing again after the iteration ended or failed. */
const RESUBSCRIBE_DELAY_MS = 500;

/**
 * How long each pull request lasts (its idle heartbeat is half of it). A stream deleted while no pull was waiting
 * sends the consumer no "deleted" notice: nats.js then learns it only after two missed heartbeats, 30 s at its
 * default of 30 s, while events published on the stream made anew sat unread. At 5 s it knows within about 5 s, for
 * one pull request an idle consumer sends every 5 s.
 */
export const PULL_EXPIRES_MS = 5_000;

/** What a StreamReader reads: pulls within a byte budget (pullWithinBudget), or a consume()'s ConsumerMessages. */
export interface MessageSource extends AsyncIterable<JsMsg> {
  stop(): void;
}

interface WarnLogger {
  warn(fields: object, message: string): void;
}

/**
 * Reads a durable consumer's messages until stopped, subscribing again
 * whenever the iteration ends or fails. `subscribe` sets up the stream and the
 * durable and pulls from it; a pull fails when the stream or durable is gone
 * (deleted, or a NATS server back without its store), which ends the
 * iteration and both are made again: left to nats.js, it waited for them for
 * ever and the events of a new stream sat unread. Shared by the emails
 * consumers (consumeEvents) and the webhook dispatcher's.
 */
export class StreamReader {
  private running = true;
  private messages?: MessageSource;
  private readonly done: Promise<void>;

  /** `first`: messages already subscribed to, so a caller can fail its boot when the first subscription does. */
  constructor(
    private readonly subscribe: () => Promise<MessageSource>,
    private readonly onMessage: (message: JsMsg) => void,
    private readonly logger: WarnLogger,
    first?: MessageSource,
  ) {
    this.messages = first;
    this.done = this.read(first);
  }

  /** Ends the reading: no message is handed on after it resolves. */
  async stop(): Promise<void> {
    this.running = false;
    this.messages?.stop();
    await this.done;
  }

  private async read(first: MessageSource | undefined): Promise<void> {
    let messages = first;
    while (this.running) {
      try {
        messages ??= this.messages = await this.subscribe();
        // Stopped while subscribing: stop() could not reach these.
        if (!this.running) messages.stop();
        for await (const message of messages) this.onMessage(message);
      } catch (error) {
        if (this.running) this.logger.warn({ err: (error as Error).message }, 'event stream read interrupted; subscribing again');
      }
      messages = undefined;
      if (this.running) await new Promise((resolve) => setTimeout(resolve, RESUBSCRIBE_DELAY_MS));
    }
  }
}
