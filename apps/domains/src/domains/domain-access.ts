import { isAtOrUnder, RequestContext } from '@mailroom/contracts';
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

/**
 * A custom tracking domain verifies by its CNAME alone, which another domain's owners publish for their own
 * mail: a key with domainRestrictions may name only a host at or under its own domains, so it cannot put its
 * mail's links under someone else's name. Null (the default host) is no one's.
 */
export function assertMayTrackUnder(ctx: RequestContext, trackingDomain: string | null | undefined): void {
  if (!trackingDomain || !ctx.domainRestrictions?.length) return;
  if (ctx.domainRestrictions.some((name) => isAtOrUnder(trackingDomain, name))) return;
  throw DomainError.forbidden(
    `This API key is restricted to ${ctx.domainRestrictions.join(', ')} and cannot use ${trackingDomain} as a tracking domain; use a name under one of them.`,
  );
}
