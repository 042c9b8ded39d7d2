import type { ApiKeyUpdateInput } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
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

/**
 * An expired key stays expired: a PATCH may rename it or change its other
 * fields, but not move or remove the expiry it has passed. Its secret may
 * have been left in places no one watches any longer once it was dead (old
 * CI variables, a leaked log), and an expiry that can be undone would bring
 * all of those back to life. A new key is what an expired one is replaced with.
 */
export function assertNotRevived(entity: ApiKeyEntity, input: ApiKeyUpdateInput, now = Date.now()): void {
  if (input.expiresAt === undefined || !entity.expiresAt || entity.expiresAt.getTime() > now) return;
  throw DomainError.conflict(`API key ${entity.id} expired at ${entity.expiresAt.toISOString()}; an expired key stays expired. Create a new key instead.`);
}
