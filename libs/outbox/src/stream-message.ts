import type { LoggerService } from '@nestjs/common';
import { EventEnvelope, parseEventEnvelope } from '@mailroom/contracts';
import { eventsIgnored } from '@mailroom/runtime';
import type { JsMsg } from 'nats';

/** 1 s after the first failure, doubling up to a minute: a database outage is not met with a storm of retries. */
export function redeliveryDelayMs(attempt: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, Math.min(attempt - 1, 6)));
}

/** Acks, naks or terms a message; if the connection is gone, JetStream redelivers it once its ack wait runs out. */
export function settle(acknowledge: () => void): void {
  try {
    acknowledge();
  } catch {
    // Nothing to do: see above.
  }
}

/**
 * The envelope of a message off the event stream, or null for one no
 * consumer could ever apply (parseEventEnvelope), or whose type is not its
 * subject (each consumer picks events by subject, webhooks and analytics by
 * type: a bounce report published as email.bounced with type
 * email.complained suppressed a bounce while webhooks were told of a
 * complaint), which is then logged and
 * terminated (and counted for `consumer`, its durable): redelivering it would
 * loop forever and hold a slot of the consumer's ack window.
 */
export function readEnvelope(message: JsMsg, logger: LoggerService, consumer: string): EventEnvelope | null {
  const parsed = parseEventEnvelope(message.string());
  if ('envelope' in parsed && parsed.envelope.type === message.subject) return parsed.envelope;
  const problem = 'envelope' in parsed ? 'type: must be the subject the event was published on' : parsed.problem;
  logger.error({ subject: message.subject, seq: message.seq, problem }, 'event is not a valid envelope; dropped');
  eventsIgnored.inc({ consumer, reason: 'not_an_envelope' });
  settle(() => message.term());
  return null;
}

/** Hands a message back for a later attempt, later with each failure. */
export function redeliverLater(message: JsMsg): void {
  settle(() => message.nak(redeliveryDelayMs(message.info.redeliveryCount)));
}
