import { DomainError, ErrorCode } from '@mailroom/errors';
import { rateLimitedRequests } from '@mailroom/runtime';
import type { ReplyLike } from '../rate-limit/enforce-rate-limit';
import { AuthFailureLimiter } from './auth-failure-limiter';

/**
 * Refuses every request from a client blocked for failed authentications,
 * before its key is looked at. Refusing only further failures would not
 * stop guessing: a right guess would still answer 200 among the 429s.
 */
export function enforceAuthFailureLimit(limiter: AuthFailureLimiter, clientIp: string, reply: ReplyLike): void {
  const retryAfterMs = limiter.retryAfterMs(clientIp);
  if (retryAfterMs === 0) return;
  const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  rateLimitedRequests.inc({ limit: 'auth_failures' });
  reply.header('Retry-After', retryAfterSeconds);
  throw new DomainError(ErrorCode.RateLimited, `Too many failed authentications from this address; retry after ${retryAfterSeconds} s.`);
}
