import type { FailureLogger } from '@mailroom/runtime';

/** Webhooks remembered as already reported; past this many the memory starts over (and each is reported once more). */
const MAX_REMEMBERED = 10_000;

/**
 * Logs the dispatcher's own faults (see dispatcher-fault.ts) at error level,
 * once per webhook while they last: a webhook whose secret does not decrypt
 * fails every attempt of every delivery, and one line says so. An attempt
 * that gets as far as the network ends the spell, so the next fault of that
 * webhook is logged again. The line names the webhook and the error, never a
 * secret: the errors thrown on the way carry none (the decryption's cause is
 * the cipher's own message).
 */
export class DispatcherFaultLog {
  private readonly reported = new Set<string>();

  constructor(private readonly logger: Pick<FailureLogger, 'error'>) {}

  report(delivery: { id: string; webhookId: string }, error: unknown): void {
    if (this.reported.has(delivery.webhookId)) return;
    if (this.reported.size >= MAX_REMEMBERED) this.reported.clear();
    this.reported.add(delivery.webhookId);
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
    this.logger.error(
      { webhookId: delivery.webhookId, deliveryId: delivery.id, err: error instanceof Error ? error.message : String(error), cause },
      'webhook deliveries cannot be attempted: they fail on the retry schedule without a request until this is fixed (logged once per webhook)',
    );
  }

  /** An attempt of this webhook reached the network: a later fault is news again. */
  cleared(webhookId: string): void {
    this.reported.delete(webhookId);
  }
}
