import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { API_KEY_VERIFIER, ApiKeyVerifier, AUTH_OPTIONS, AuthOptions } from './auth.tokens';
import { assertGranted, authenticate, authRequestOf, HttpRequestLike } from './authenticate';
import { AuthenticatedRequest, requiredPermission } from './decorators';

/**
 * Global guard: every route needs an API key unless it is marked @Public().
 * An app may authenticate earlier, before the body is read (the gateway does,
 * in a Fastify hook) and leave the verdict on the request; the guard then
 * only confirms the permission, with no second lookup. A request that came
 * without one is authenticated here, so a route the early check missed
 * still fails closed.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(API_KEY_VERIFIER) private readonly verifier: ApiKeyVerifier,
    @Inject(AUTH_OPTIONS) private readonly options: AuthOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const required = requiredPermission(this.reflector, context.getHandler(), context.getClass());
    if (required === null) return true;
    const request = context.switchToHttp().getRequest<HttpRequestLike & AuthenticatedRequest>();
    if (request.mailroom) assertGranted(request.mailroom.key, required);
    else request.mailroom = await authenticate(authRequestOf(request), required, this.verifier, this.options);
    return true;
  }
}
