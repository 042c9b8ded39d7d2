import { DomainError, ErrorCode } from '@mailroom/errors';
import { rateLimitedRequests } from '@mailroom/runtime';
import { RateLimiter } from './rate-limiter';

/** What the limits set headers on: Fastify's reply, or a stand-in in a test. */
export interface ReplyLike {
  header(name: string, value: string | number): unknown;
}

/**
 * Takes one of the key's tokens. Runs right after authentication, before the
 * body is read, so every authenticated answer (a body error too) carries the
 * RateLimit-* headers, and a key over its limit gets 429 with Retry-After
 * without the gateway parsing what it sent.
 */
export function enforceRateLimit(limiter: RateLimiter, keyId: string, reply: ReplyLike): void {
  if (limiter.buckets.ratePerSecond === 0) return;
  const result = limiter.take(keyId);
  reply.header('RateLimit-Limit', limiter.buckets.burst);
  reply.header('RateLimit-Remaining', result.remaining);
  reply.header('RateLimit-Reset', result.resetSeconds);
  if (result.allowed) return;
  rateLimitedRequests.inc({ limit: 'api_key' });
  reply.header('Retry-After', result.retryAfterSeconds);
  throw new DomainError(ErrorCode.RateLimited, `Too many requests for this API key; retry after ${result.retryAfterSeconds} s.`);
}
