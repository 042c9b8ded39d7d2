import type { DeliveryResponse } from '@mailroom/contracts';
import { DeliveryAttemptEntity } from '../database/entities/delivery-attempt.entity';
import { DeliveryEntity } from '../database/entities/delivery.entity';

export function toResponse(entity: DeliveryEntity, attempts: DeliveryAttemptEntity[]): DeliveryResponse {
  return {
    id: entity.id,
    object: 'webhook_delivery',
    webhookId: entity.webhookId,
    eventId: entity.eventId,
    eventType: entity.eventType,
    status: entity.status,
    attempts: entity.attempts,
    responseCode: entity.lastResponseCode,
    durationMs: entity.lastDurationMs,
    error: entity.lastError,
    nextAttemptAt: entity.nextAttemptAt?.toISOString() ?? null,
    createdAt: entity.createdAt.toISOString(),
    attemptLog: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      at: attempt.startedAt.toISOString(),
      responseCode: attempt.responseCode,
      durationMs: attempt.durationMs,
      error: attempt.error,
    })),
  };
}
