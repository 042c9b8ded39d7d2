import { Injectable, Logger } from '@nestjs/common';
import { isTransactionConflict, retryWhileDatabaseUnavailable } from '@mailroom/database';
import { RepeatedFailureLog } from '@mailroom/runtime';
import { signWebhookPayload } from '@mailroom/contracts';
import { WebhookSettings } from '../webhook-settings';
import { attemptRecordRetries, recordAttemptMetrics } from './attempt-metrics';
import { AttemptRecorder } from './attempt-recorder';
import { classifyAttempt, HttpResult } from './attempt-outcome';
import { dispatcherFaultResult, UndecryptableSecretError } from './dispatcher-fault';
import { DispatcherFaultLog } from './dispatcher-fault-log';
import { deliveryHeaders } from './delivery-headers';
import { ClaimedDelivery, DispatchRepository } from './dispatch.repository';
import { nextAttemptAt } from './retry-policy';
import { WebhookSender } from './webhook-sender';
import { webhookLookup } from '../ssrf/webhook-lookup';

/** Makes one attempt of one claimed delivery: sign, POST, record. */
@Injectable()
export class DeliveryAttempter {
  private readonly logger = new Logger(DeliveryAttempter.name);
  /** Every request in flight retries on its own through an outage; one line per 30 s says so for all of them. */
  private readonly recordFailures = new RepeatedFailureLog(this.logger, 'recording webhook attempts');
  private readonly faultLog = new DispatcherFaultLog(this.logger);
  private readonly sender: WebhookSender;
  private stopping = false;

  constructor(
    private readonly repository: DispatchRepository,
    private readonly recorder: AttemptRecorder,
    private readonly settings: WebhookSettings,
  ) {
    this.sender = new WebhookSender({
      timeoutMs: settings.timeoutMs,
      maxResponseBytes: settings.maxResponseBytes,
      allowHttp: settings.urlPolicy.allowHttp,
      allowPrivateNetworks: settings.urlPolicy.allowPrivateNetworks,
      lookup: webhookLookup(Object.assign({ allowPrivateNetworks: settings.urlPolicy.allowPrivateNetworks }, settings.dns)),
    });
  }

  /** `sent` is called once the HTTP exchange is over, before the result is written: the endpoint's slot is free from then on. */
  async attempt(delivery: ClaimedDelivery, owner: string, sent: () => void = () => undefined): Promise<void> {
    if (delivery.webhookStatus === 'disabled') {
      await this.repository.abandon(owner, delivery.id, 'not sent: the webhook is disabled');
      return;
    }
    const startedAt = new Date();
    const result = await this.send(delivery, startedAt);
    sent();
    if (this.stopping && result.statusCode === null) {
      recordAttemptMetrics(Object.assign({}, result, { failure: 'aborted' }), null);
      await this.repository.releaseLease(owner, delivery.id);
      return;
    }
    const now = new Date();
    const outcome = classifyAttempt(result, now);
    recordAttemptMetrics(result, outcome);
    const next = outcome.success || outcome.gone
      ? null
      : nextAttemptAt({ schedule: this.settings.retrySchedule, attemptsMade: delivery.attempts + 1, attemptLimit: delivery.attemptLimit, retryAfterMs: outcome.retryAfterMs, now });
    const record = {
      owner,
      delivery,
      startedAt,
      responseCode: result.statusCode,
      durationMs: result.durationMs,
      error: outcome.error,
      success: outcome.success,
      gone: outcome.gone,
      affectsWebhookHealth: outcome.affectsWebhookHealth,
      nextAttemptAt: next,
    };
    // The endpoint has answered: while Postgres is away, keep the answer and try again for as long as it takes. The
    // write is fenced on the lease owner, so once another replica has taken the delivery over it answers false.
    // Giving up instead (it did, after WEBHOOK_LEASE_MS) took the delivery out of this dispatcher's pool, so once the
    // database was back it claimed the delivery again and posted the event a second time. A write Postgres aborted to
    // break a deadlock (group commits of two dispatchers lock webhooks they share) rolled back and is written again too.
    const recorded = await retryWhileDatabaseUnavailable(() => this.recorder.record(record), {
      onRetry: () => attemptRecordRetries.inc(),
      failures: this.recordFailures,
      alsoRetry: isTransactionConflict,
    });
    if (!recorded) this.logger.warn({ deliveryId: delivery.id }, 'delivery was taken over by another dispatcher; this attempt is not recorded');
  }

  /** From now on, aborted requests are released rather than recorded as failures. */
  stop(): void {
    this.stopping = true;
    this.sender.abortAll();
  }

  close(): void {
    this.sender.close();
  }

  /**
   * Signs and POSTs the event. Anything that throws on the way (a secret
   * that does not decrypt, a request Node refuses to build) is the
   * dispatcher's fault, not an answer of the endpoint: it comes back as a
   * result like any other, so it is recorded and retried on the schedule.
   */
  private async send(delivery: ClaimedDelivery, startedAt: Date): Promise<HttpResult> {
    try {
      const body = serialize(delivery.payload);
      const signature = signWebhookPayload(body, this.secretsOf(delivery, startedAt), Math.floor(startedAt.getTime() / 1000));
      const headers = deliveryHeaders(delivery, signature);
      const result = await this.sender.send(delivery.url, body, headers);
      this.faultLog.cleared(delivery.webhookId);
      return result;
    } catch (error) {
      this.faultLog.report(delivery, error);
      return dispatcherFaultResult(error, Date.now() - startedAt.getTime());
    }
  }

  /** The current secret, plus the previous one while its rotation grace lasts. */
  private secretsOf(delivery: ClaimedDelivery, now: Date): string[] {
    const secrets = [this.decrypt(delivery.secretSealed, delivery.webhookId)];
    if (delivery.previousSecretSealed && delivery.previousSecretExpiresAt && delivery.previousSecretExpiresAt > now) {
      secrets.push(this.decrypt(delivery.previousSecretSealed, delivery.webhookId));
    }
    return secrets;
  }

  private decrypt(sealed: string, webhookId: string): string {
    try {
      return this.settings.secretBox.decrypt(sealed, webhookId);
    } catch (error) {
      throw new UndecryptableSecretError(error);
    }
  }
}

/** The envelope in its documented key order (jsonb does not keep the order it was given). */
function serialize(payload: ClaimedDelivery['payload']): string {
  return JSON.stringify({ id: payload.id, type: payload.type, createdAt: payload.createdAt, mode: payload.mode, data: payload.data });
}
