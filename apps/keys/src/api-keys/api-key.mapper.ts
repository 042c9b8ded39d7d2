import type { ApiKeyResponse, VerifiedApiKey } from '@mailroom/contracts';
import { ApiKeyEntity } from '../database/entities/api-key.entity';

export function toResponse(entity: ApiKeyEntity): ApiKeyResponse {
  return {
    id: entity.id,
    object: 'api_key',
    name: entity.name,
    mode: entity.mode,
    keyHint: entity.keyHint,
    permissions: entity.permissions,
    domainRestrictions: entity.domainRestrictions,
    ipRestrictions: entity.ipRestrictions,
    expiresAt: entity.expiresAt?.toISOString() ?? null,
    lastUsedAt: entity.lastUsedAt?.toISOString() ?? null,
    createdAt: entity.createdAt.toISOString(),
  };
}

export function toVerified(entity: ApiKeyEntity): VerifiedApiKey {
  return {
    keyId: entity.id,
    mode: entity.mode,
    permissions: entity.permissions,
    domainRestrictions: entity.domainRestrictions,
    ipRestrictions: entity.ipRestrictions,
    expiresAt: entity.expiresAt?.toISOString() ?? null,
  };
}
