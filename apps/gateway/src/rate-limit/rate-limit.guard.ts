import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { AuthenticatedRequest } from '@mailroom/auth';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { rateLimitedRequests } from '@mailroom/runtime';
import { RateLimiter } from './rate-limiter';

interface ReplyLike {
  header(name: string, value: string | number): unknown;
}

/**
 * Runs after the API key guard: every authenticated response carries the
 * RateLimit-* headers, and a key over its limit gets 429 with Retry-After.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  canActivate(context: ExecutionContext): boolean {
    const keyId = context.switchToHttp().getRequest<AuthenticatedRequest>().mailroom?.key.keyId;
    if (!keyId || this.limiter.buckets.ratePerSecond === 0) return true;
    const reply = context.switchToHttp().getResponse<ReplyLike>();
    const result = this.limiter.take(keyId);
    reply.header('RateLimit-Limit', this.limiter.buckets.burst);
    reply.header('RateLimit-Remaining', result.remaining);
    reply.header('RateLimit-Reset', result.resetSeconds);
    if (result.allowed) return true;
    rateLimitedRequests.inc();
    reply.header('Retry-After', result.retryAfterSeconds);
    throw new DomainError(ErrorCode.RateLimited, `Too many requests for this API key; retry after ${result.retryAfterSeconds} s.`);
  }
}
