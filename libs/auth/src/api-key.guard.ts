import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Permission } from '@mailroom/contracts';
import { API_KEY_VERIFIER, ApiKeyVerifier, AUTH_OPTIONS, AuthOptions } from './auth.tokens';
import { authenticate } from './authenticate';
import { AuthenticatedRequest, PERMISSION_METADATA, PUBLIC_METADATA } from './decorators';

interface HttpRequestLike extends AuthenticatedRequest {
  headers: Record<string, string | string[] | undefined>;
  ip: string;
}

/** Global guard: every route needs an API key unless it is marked @Public(). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(API_KEY_VERIFIER) private readonly verifier: ApiKeyVerifier,
    @Inject(AUTH_OPTIONS) private readonly options: AuthOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_METADATA, targets)) return true;
    const required = this.reflector.getAllAndOverride<Permission>(PERMISSION_METADATA, targets) ?? '*';
    const request = context.switchToHttp().getRequest<HttpRequestLike>();
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    request.mailroom = await authenticate(
      { authorization: header('authorization'), clientIp: request.ip, requestId: header('x-request-id'), now: new Date() },
      required,
      this.verifier,
      this.options,
    );
    return true;
  }
}
