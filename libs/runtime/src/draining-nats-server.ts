import { ServerNats } from '@nestjs/microservices';
import type { Msg, NatsConnection, Subscription } from 'nats';
import { markAsNatsFailure } from './boot-failure';
import { LoopTurnQueue } from './loop-turn-queue';
import { failedRequest } from './failed-request-reply';
import { replacementForOversizedReply } from './oversized-reply';

/** How long closing waits for handlers in flight; a request still unanswered then times out at its caller. */
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Nest's NATS transport, closed gracefully. Nest's own close() drops the
 * connection at once, so a handler still running (an email being committed)
 * could never send its reply: the caller would see a timeout for work that was
 * done. Here close() first drains its subscriptions (it unsubscribes, and
 * takes in what the server routed here before it read that), so the queue
 * group's other replicas take every new request, then waits until each
 * handler in flight has answered (bounded), and only then closes the
 * connection.
 */
export class DrainingNatsServer extends ServerNats {
  private readonly ownSubscriptions: Subscription[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Replies ready in one event-loop turn go out together, in one socket write. */
  private readonly replies = new LoopTurnQueue();

  /** Read at each reply: its info (max_payload) is the server's it is connected to now. */
  private connection?: NatsConnection;

  /**
   * A TLS failure (a certificate the CAs did not sign) reaches here as Node's
   * own error, which does not say it came from NATS: marked, boot names the server.
   */
  override async createNatsClient(): Promise<NatsConnection> {
    try {
      return await super.createNatsClient();
    } catch (error) {
      throw markAsNatsFailure(error as Error);
    }
  }

  /**
   * Listening once the server has the subscriptions, not once they are
   * written: nats.js sends them with its next write, and until the server has
   * read them a request finds no responders. A service just restarted behind
   * a running gateway answered its first requests 503 so, while its boot had
   * already returned.
   */
  override start(callback: (error?: unknown) => void): void {
    super.start((error?: unknown) => {
      if (error) return callback(error);
      this.connection!.flush().then(
        () => callback(),
        (flushError: Error) => callback(markAsNatsFailure(flushError)),
      );
    });
  }

  override bindEvents(client: NatsConnection): void {
    this.connection = client;
    // ServerNats keeps its subscriptions private; this view of the client records them as they are made.
    const recording = Object.create(client) as NatsConnection;
    recording.subscribe = (subject, options) => {
      const subscription = client.subscribe(subject, options);
      this.ownSubscriptions.push(subscription);
      return subscription;
    };
    super.bindEvents(recording);
  }

  override async handleMessage(channel: string, message: Msg): Promise<unknown> {
    // A request is finished when its reply is sent (Nest sends it after the handler's promise settles); an event when its handler returns.
    let replied: () => void = () => undefined;
    const reply = message.reply ? new Promise<void>((resolve) => (replied = resolve)) : Promise.resolve();
    if (message.reply) {
      const respond = message.respond.bind(message);
      message.respond = (...args: Parameters<Msg['respond']>) => {
        this.replies.push(() => {
          try {
            const [data, options] = args;
            const replacement = data && replacementForOversizedReply(data, this.connection?.info?.max_payload);
            if (replacement) this.logger.warn(`reply on ${channel} does not fit the server's max_payload: answered payload_too_large instead`);
            respond(replacement ?? data, options);
          } catch (error) {
            // The connection closed under us: the caller times out, as it would have without a reply.
            this.logger.warn(`reply on ${channel} not sent: ${(error as Error).message}`);
          } finally {
            replied();
          }
        });
        return true;
      };
    }
    // Nest resolves this before the reply of a request is sent, so only a failure ends the wait here: answered
    // (which ends it) and logged, never left to reject, which would end the process (see failedRequest).
    const handled = super.handleMessage(channel, message).catch((error: unknown) => {
      const failure = failedRequest(channel, error);
      this.logger.error(failure.log, `message on ${channel} could not be handled`);
      // The reply ends the wait once it is sent; without one there was nothing to wait for.
      if (message.reply) message.respond(failure.reply);
    });
    const done = Promise.allSettled([handled, reply]);
    this.inFlight.add(done);
    void done.then(() => this.inFlight.delete(done));
    return handled;
  }

  /**
   * Our patterns are plain subject strings. Nest tries JSON.parse on every
   * message's pattern first and catches the SyntaxError, which cost the keys
   * service 3% of its CPU under the auth benchmark; only JSON-looking
   * patterns need that path.
   */
  override getRouteFromPattern(pattern: string): string {
    return pattern.startsWith('{') ? super.getRouteFromPattern(pattern) : pattern;
  }

  override async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise((resolve) => (timer = setTimeout(resolve, DRAIN_TIMEOUT_MS)));
    // drain, not unsubscribe: the server goes on routing requests here until it has read the UNSUB, and a plain
    // unsubscribe dropped those that arrived after it, each caller waiting out its whole timeout. drain takes them
    // in until the server confirms, so they are in flight below.
    const drained = Promise.allSettled(this.ownSubscriptions.splice(0).map((subscription) => subscription.drain()));
    await Promise.race([drained.then(() => Promise.allSettled([...this.inFlight])), deadline]);
    clearTimeout(timer);
    await super.close();
  }
}
