import { Injectable } from '@nestjs/common';
import {
  DeliveryList,
  DeliveryListPayload,
  DeliveryResponse,
  DeliveryRetryPayload,
  EventEnvelope,
  RequestContext,
  WEBHOOK_TEST_EVENT,
} from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import { ulid } from '@mailroom/database';
import { DeliveryEntity } from '../database/entities/delivery.entity';
import { DeliveryWorker } from '../dispatch/delivery-worker';
import { WebhooksService } from '../webhooks/webhooks.service';
import { toResponse } from './delivery.mapper';
import { DeliveriesRepository } from './deliveries.repository';

@Injectable()
export class DeliveriesService {
  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly webhooks: WebhooksService,
    private readonly worker: DeliveryWorker,
  ) {}

  async list({ ctx, webhookId, params, status }: DeliveryListPayload): Promise<DeliveryList> {
    await this.webhooks.find(ctx, webhookId);
    const { page, attempts } = await this.repository.pageWithAttempts(webhookId, params, status);
    return {
      object: 'list',
      data: page.rows.map((row) => toResponse(row, attempts.get(row.id) ?? [])),
      hasMore: page.hasMore,
      totalCount: page.totalCount,
    };
  }

  async retry({ ctx, webhookId, deliveryId }: DeliveryRetryPayload): Promise<DeliveryResponse> {
    const webhook = await this.webhooks.find(ctx, webhookId);
    // The delivery first: one that is not this webhook's is 404 whatever its state; a 409 would send the caller to re-enable a webhook for nothing.
    const existing = await this.repository.find(webhookId, deliveryId);
    if (!existing) throw DomainError.notFound('delivery', deliveryId);
    assertEnabled(webhook);
    if (!(await this.repository.retryNow(deliveryId))) {
      // Leased by a dispatcher, or deleted since it was read: with its webhook, or by the retention purge.
      if (!(await this.repository.find(webhookId, deliveryId))) {
        await this.webhooks.find(ctx, webhookId);
        throw DomainError.notFound('delivery', deliveryId);
      }
      throw DomainError.conflict('This delivery is being attempted right now; try again when the attempt has finished.');
    }
    this.worker.wake();
    const due = await this.repository.findWithAttempts(deliveryId);
    if (!due) throw DomainError.notFound('delivery', deliveryId);
    return toResponse(due.delivery, due.attempts);
  }

  /** Sends a `webhook.test` event to this one endpoint, once (no retries). */
  async sendTest(ctx: RequestContext, webhookId: string): Promise<DeliveryResponse> {
    const webhook = await this.assertDeliverable(ctx, webhookId);
    const now = new Date();
    const envelope: EventEnvelope = {
      id: `evt_${ulid()}`,
      type: WEBHOOK_TEST_EVENT,
      createdAt: now.toISOString(),
      mode: webhook.mode,
      data: { webhookId, message: 'This is a test event from Mailroom.' },
    };
    const entity = Object.assign(new DeliveryEntity(), {
      id: `whd_${ulid()}`,
      webhookId,
      eventId: envelope.id,
      eventType: envelope.type,
      payload: envelope as unknown as Record<string, unknown>,
      status: 'pending',
      attempts: 0,
      attemptLimit: 1,
      nextAttemptAt: now,
      lastResponseCode: null,
      lastDurationMs: null,
      lastError: null,
      leaseOwner: null,
      leaseExpiresAt: null,
      createdAt: now,
    } satisfies DeliveryEntity);
    const saved = await this.repository.insert(entity);
    if (!saved) throw DomainError.notFound('webhook', webhookId);
    this.worker.wake();
    return toResponse(saved, []);
  }

  private async assertDeliverable(ctx: RequestContext, webhookId: string) {
    const webhook = await this.webhooks.find(ctx, webhookId);
    assertEnabled(webhook);
    return webhook;
  }
}

/** A disabled webhook receives nothing, not even by hand: re-enable it first (PATCH status=active). */
function assertEnabled(webhook: { status: string }): void {
  if (webhook.status === 'disabled') throw DomainError.conflict('This webhook is disabled; set its status to active first.');
}
