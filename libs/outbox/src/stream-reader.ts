import type { ConsumerMessages, JsMsg } from 'nats';

/** How long to wait before subscribing again after the iteration ended or failed. */
const RESUBSCRIBE_DELAY_MS = 500;

/**
 * How long each pull request of a consume() lasts (its idle heartbeat is half of it). A stream deleted while no
 * pull was waiting sends the consumer no "deleted" notice: nats.js then learns it only after two missed heartbeats,
 * 30 s at its default of 30 s, while events published on the stream made anew sat unread. At 5 s it knows within
 * about 5 s, for one pull request an idle consumer sends every 5 s.
 */
const PULL_EXPIRES_MS = 5_000;

/**
 * The consume() options every StreamReader's subscribe uses: abort_on_missing_resource, so a stream or durable that
 * is gone ends the iteration and the reader sets both up again, with pull requests of PULL_EXPIRES_MS.
 */
export function consumeOptions(maxMessages: number) {
  return { max_messages: maxMessages, expires: PULL_EXPIRES_MS, abort_on_missing_resource: true };
}

interface WarnLogger {
  warn(fields: object, message: string): void;
}

/**
 * Reads a durable consumer's messages until stopped, subscribing again
 * whenever the iteration ends or fails. `subscribe` sets up the stream and the
 * durable and consumes with abort_on_missing_resource, so a stream or durable
 * that is gone (deleted, or a NATS server back without its store) ends the
 * iteration and both are made again: left to nats.js, it waited for them for
 * ever and the events of a new stream sat unread. Shared by the emails
 * consumers (consumeEvents) and the webhook dispatcher's.
 */
export class StreamReader {
  private running = true;
  private messages?: ConsumerMessages;
  private readonly done: Promise<void>;

  /** `first`: messages already subscribed to, so a caller can fail its boot when the first subscription does. */
  constructor(
    private readonly subscribe: () => Promise<ConsumerMessages>,
    private readonly onMessage: (message: JsMsg) => void,
    private readonly logger: WarnLogger,
    first?: ConsumerMessages,
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

  private async read(first: ConsumerMessages | undefined): Promise<void> {
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
