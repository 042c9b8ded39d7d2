import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { API_KEY_VERIFIER, ApiKeyVerifier, AUTH_OPTIONS, AuthenticatedRequest, AuthOptions, authenticate, authRequestOf, NotAGuessError } from '@mailroom/auth';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { enforceRateLimit } from '../rate-limit/enforce-rate-limit';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { enforceAuthFailureLimit } from './enforce-auth-failure-limit';
import { RouteRequirements } from './route-requirements';
import { SharedAuthFailures } from './shared-auth-failures';

/**
 * Settles who may call a route from its headers alone: a key sent from a
 * client address blocked for failed authentications (429, before the key is
 * looked up and again after), then the authentication rules in
 * order (401, then 403 for the client address, then 403 for the
 * permission), then the key's rate limit (429). The gateway runs it in
 * Fastify's onRequest hook, because Nest's guards run only after Fastify
 * has checked the media type and parsed the body, so a caller without a
 * valid key used to be told about its body (415, 413, 400) rather than
 * 401. The verdict is left on the request for ApiKeyGuard, @Ctx() and
 * @CallerKey(); a cache hit costs no NATS round trip, as in the guard.
 */
@Injectable()
export class RequestAdmission {
  constructor(
    private readonly requirements: RouteRequirements,
    @Inject(API_KEY_VERIFIER) private readonly verifier: ApiKeyVerifier,
    @Inject(AUTH_OPTIONS) private readonly options: AuthOptions,
    private readonly limiter: RateLimiter,
    private readonly failures: AuthFailureLimiter,
    private readonly sharedFailures: SharedAuthFailures,
  ) {}

  async admit(request: FastifyRequest & AuthenticatedRequest, reply: FastifyReply): Promise<void> {
    const required = this.requirements.of(request.method, request.routeOptions.url);
    // null: a public route; undefined: no route, which Nest answers 404 whoever asks.
    if (!required) return;
    // A request with no key guesses nothing (a browser tab, a probe pointed at an API route): it is told 401 and
    // neither counts nor is blocked, so it cannot lock the real clients of its address out.
    const presentsKey = Boolean(request.headers.authorization);
    // request.ip honours X-Forwarded-For from TRUSTED_PROXIES only, as ipRestrictions do.
    if (presentsKey) enforceAuthFailureLimit(this.failures, request.ip, reply);
    const verdict = await authenticate(authRequestOf(request), required, this.verifier, this.options).catch((error: unknown) => ({ refused: error }));
    if (presentsKey) {
      // Checked again once the key is looked up: guesses sent in parallel all pass the check above before any of
      // them fails, so the address may have been blocked meanwhile. Its answer, whatever the key, is then 429:
      // the LIMIT-th failure still answers 401, and a 200 or 403 would tell a right guess from a wrong one.
      enforceAuthFailureLimit(this.failures, request.ip, reply);
      if ('refused' in verdict && isGuessRefused(verdict.refused)) this.sharedFailures.recordFailure(request.ip);
    }
    if ('refused' in verdict) throw verdict.refused;
    request.mailroom = verdict;
    enforceRateLimit(this.limiter, request.mailroom.key.keyId, reply);
  }
}

/** A 401 to a key that could be a guess; NotAGuessError (a deleted or expired key, a test key with test mode off) is not. */
function isGuessRefused(error: unknown): boolean {
  return error instanceof DomainError && error.code === ErrorCode.Unauthorized && !(error instanceof NotAGuessError);
}
