import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Permission, RequestContext, VerifiedApiKey } from '@mailroom/contracts';

export const PERMISSION_METADATA = 'mailroom:permission';
export const PUBLIC_METADATA = 'mailroom:public';

/** The permission a route needs. The guard fails closed: a route without one needs `*`. */
export const RequirePermission = (permission: Permission) => applyDecorators(SetMetadata(PERMISSION_METADATA, permission));

/** A route that needs no API key (health, tracking pixel, redirects). */
export const Public = () => SetMetadata(PUBLIC_METADATA, true);

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
