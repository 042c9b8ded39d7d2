import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MailroomConfig } from '@mailroom/config';
import type { VerifiedApiKey } from '@mailroom/contracts';
import { ApiKeyVerifier, AuthenticatedRequest, generateApiKey, hashApiKey, KeyLookup } from '@mailroom/auth';
import { DomainError } from '@mailroom/errors';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { RequestAdmission } from './request-admission';
import type { RouteRequirements } from './route-requirements';
import { SharedAuthFailures } from './shared-auth-failures';

const LIMIT = 3;
const CLIENT = '203.0.113.1';

/**
 * RequestAdmission with a key lookup that waits until the test answers it, so
 * the test decides which requests are in flight together and in what order
 * their lookups end. SharedAuthFailures is not connected: it counts here only.
 */
function admissionWithGatedLookups() {
  const validKey = generateApiKey('live');
  const powerlessKey = generateApiKey('live');
  const keysByHash = new Map<string, VerifiedApiKey>([
    [hashApiKey(validKey), verifiedKey('key_valid', ['*'])],
    [hashApiKey(powerlessKey), verifiedKey('key_powerless', [])],
  ]);
  const waiting = new Map<string, Array<(lookup: KeyLookup) => void>>();
  const verifier: ApiKeyVerifier = {
    verify: (keyHash) => new Promise((resolve) => waiting.set(keyHash, [...(waiting.get(keyHash) ?? []), resolve])),
    recordUse: () => undefined,
  };
  const config = { AUTH_FAILURE_LIMIT: LIMIT, RATE_LIMIT_PER_SECOND: 0, RATE_LIMIT_BURST: 0 } as MailroomConfig;
  const failures = new AuthFailureLimiter(LIMIT, 60_000, 100);
  const requirements = { of: () => 'api-keys:*' } as unknown as RouteRequirements;
  const admission = new RequestAdmission(requirements, verifier, { testModeEnabled: true }, new RateLimiter(config), failures, new SharedAuthFailures(failures, config));

  /** Starts a request with the key; its outcome is 'admitted' or the error's HTTP status. */
  const send = (key: string) => {
    const request = { method: 'GET', routeOptions: { url: '/v1/api-keys' }, headers: { authorization: `Bearer ${key}` }, ip: CLIENT };
    const reply = { header: () => reply };
    return admission.admit(request as unknown as FastifyRequest & AuthenticatedRequest, reply as unknown as FastifyReply).then(
      () => 'admitted',
      (error: DomainError) => error.httpStatus,
    );
  };
  /** Ends the lookups of these keys as the keys service would, then lets their requests finish. */
  const answer = async (...keys: string[]) => {
    for (const key of keys) {
      const hash = hashApiKey(key);
      for (const resolve of waiting.get(hash) ?? []) resolve(keysByHash.get(hash) ?? null);
      waiting.delete(hash);
    }
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { send, answer, validKey, powerlessKey };
}

function verifiedKey(keyId: string, permissions: string[]): VerifiedApiKey {
  return { keyId, mode: 'live', permissions, domainRestrictions: [], ipRestrictions: [], expiresAt: null };
}

describe(RequestAdmission.name, () => {
  it(`answers at most ${LIMIT} of many guesses sent in parallel from one address 401, and the rest 429`, async () => {
    const { send, answer } = admissionWithGatedLookups();
    const guesses = Array.from({ length: LIMIT * 4 }, () => generateApiKey('live'));
    const outcomes = guesses.map(send);
    await answer(...guesses);
    const statuses = await Promise.all(outcomes);
    expect(statuses.filter((status) => status === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(LIMIT * 3);
  });

  it('answers 429, not what its key would have got, to a request whose lookup ended after guesses in flight with it blocked its address', async () => {
    const { send, answer, validKey, powerlessKey } = admissionWithGatedLookups();
    const guesses = Array.from({ length: LIMIT }, () => generateApiKey('live'));
    const valid = send(validKey);
    const powerless = send(powerlessKey);
    const guessed = guesses.map(send);
    await answer(...guesses);
    expect(await Promise.all(guessed)).toEqual(Array(LIMIT).fill(401));
    await answer(validKey, powerlessKey);
    // A 200 or a 403 would tell a right guess from a wrong one after the address was blocked.
    expect(await Promise.all([valid, powerless])).toEqual([429, 429]);
  });

  it('admits every one of many requests with a valid key in flight together, and one whose lookup ended before the guesses blocked its address', async () => {
    const { send, answer, validKey } = admissionWithGatedLookups();
    const valid = Array.from({ length: LIMIT * 10 }, () => send(validKey));
    const guesses = Array.from({ length: LIMIT }, () => generateApiKey('live'));
    const guessed = guesses.map(send);
    await answer(validKey);
    await answer(...guesses);
    expect(await Promise.all(valid)).toEqual(Array(LIMIT * 10).fill('admitted'));
    expect(await Promise.all(guessed)).toEqual(Array(LIMIT).fill(401));
    expect(await send(validKey)).toBe(429);
  });
});
