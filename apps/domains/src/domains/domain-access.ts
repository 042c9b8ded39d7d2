import type { RequestContext } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';

/** A key with domainRestrictions sees only those names (exact match); anything else looks like it does not exist. */
export function canSee(ctx: RequestContext, name: string): boolean {
  return !ctx.domainRestrictions?.length || ctx.domainRestrictions.includes(name);
}

export function assertVisible<T extends { name: string }>(ctx: RequestContext, entity: T | null, id: string): T {
  if (!entity || !canSee(ctx, entity.name)) throw DomainError.notFound('domain', id);
  return entity;
}

export function assertMayAdd(ctx: RequestContext, name: string): void {
  if (!canSee(ctx, name)) {
    throw DomainError.forbidden(`This API key is restricted to ${ctx.domainRestrictions.join(', ')} and cannot add ${name}.`);
  }
}
