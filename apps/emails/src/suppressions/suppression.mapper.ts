import type { SuppressionResponse } from '@mailroom/contracts';
import { SuppressionEntity } from '../database/entities/suppression.entity';

export function toResponse(entity: SuppressionEntity): SuppressionResponse {
  return {
    object: 'suppression',
    email: entity.address,
    reason: entity.reason,
    details: entity.details,
    createdAt: entity.createdAt.toISOString(),
  };
}
