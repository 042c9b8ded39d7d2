import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { Permission, RequestContext, VerifiedApiKey } from '@mailroom/contracts';

export const PERMISSION_METADATA = 'mailroom:permission';
export const PUBLIC_METADATA = 'mailroom:public';

/** The permission a route needs. The guard fails closed: a route without one needs `*`. */
export const RequirePermission = (permission: Permission) => applyDecorators(SetMetadata(PERMISSION_METADATA, permission));

/** A route that needs no API key (health, tracking pixel, redirects). */
export const Public = () => SetMetadata(PUBLIC_METADATA, true);

/**
 * What a route asks of its caller: null for a public route, else the
 * permission it needs (`*` when it names none, so the check fails closed).
 * The one reading of the two decorators above, for the guard and for
 * anything that must know it before the guard runs.
 */
export function requiredPermission(reflector: Reflector, handler: Function, controller: Function): Permission | null {
  const targets = [handler, controller];
  if (reflector.getAllAndOverride<boolean>(PUBLIC_METADATA, targets)) return null;
  return reflector.getAllAndOverride<Permission>(PERMISSION_METADATA, targets) ?? '*';
}

export interface AuthenticatedRequest {
  mailroom?: { ctx: RequestContext; key: VerifiedApiKey };
}

/** The verified caller forwarded to services. */
export const Ctx = createParamDecorator((_: unknown, context: ExecutionContext): RequestContext => {
  return context.switchToHttp().getRequest<AuthenticatedRequest>().mailroom!.ctx;
});

/** The caller's key, for rules like "a key cannot grant what it does not hold". */
export const CallerKey = createParamDecorator((_: unknown, context: ExecutionContext): VerifiedApiKey => {
  return context.switchToHttp().getRequest<AuthenticatedRequest>().mailroom!.key;
});
