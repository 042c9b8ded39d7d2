import type { ApiKeyUpdateInput } from '@mailroom/contracts';
import type { ApiKeyEntity } from '../database/entities/api-key.entity';

/**
 * The columns a PATCH sets: only the fields it names. Writing back the whole
 * row read earlier undid whatever another request changed meanwhile (a
 * concurrent PATCH's restriction, or a DELETE's deleted_at).
 */
export function changesOf(input: ApiKeyUpdateInput): Partial<ApiKeyEntity> {
  const changes: Partial<ApiKeyEntity> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.permissions) changes.permissions = [...new Set(input.permissions)];
  if (input.domainRestrictions) changes.domainRestrictions = [...new Set(input.domainRestrictions)];
  if (input.ipRestrictions) changes.ipRestrictions = [...new Set(input.ipRestrictions)];
  if (input.expiresAt !== undefined) changes.expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
  return changes;
}
