import type { ApiKeyCreateInput, ApiKeyUpdateInput, VerifiedApiKey } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import { missingGrants, rangeCoveredBy } from '@mailroom/auth';

/**
 * A key cannot grant what it does not hold: permissions must be held by the
 * caller, and restrictions may only be as tight as the caller's or tighter.
 */
export function assertWithinCaller(caller: VerifiedApiKey, wanted: ApiKeyUpdateInput): void {
  if (wanted.permissions) {
    const missing = missingGrants(caller.permissions, wanted.permissions);
    if (missing.length) throw DomainError.forbidden(`This API key cannot grant permissions it does not hold: ${missing.join(', ')}.`);
  }
  if (caller.domainRestrictions.length && wanted.domainRestrictions) {
    const outside = wanted.domainRestrictions.filter((domain) => !caller.domainRestrictions.includes(domain));
    if (!wanted.domainRestrictions.length || outside.length) {
      throw DomainError.forbidden(`domainRestrictions must stay within this API key's own: ${caller.domainRestrictions.join(', ')}.`);
    }
  }
  if (caller.ipRestrictions.length && wanted.ipRestrictions) {
    const outside = wanted.ipRestrictions.filter((range) => !rangeCoveredBy(range, caller.ipRestrictions));
    if (!wanted.ipRestrictions.length || outside.length) {
      throw DomainError.forbidden(`ipRestrictions must stay within this API key's own: ${caller.ipRestrictions.join(', ')}.`);
    }
  }
  if (caller.expiresAt && wanted.expiresAt !== undefined) {
    if (wanted.expiresAt === null || Date.parse(wanted.expiresAt) > Date.parse(caller.expiresAt)) {
      throw DomainError.forbidden(`expiresAt cannot be later than this API key's own expiry (${caller.expiresAt}).`);
    }
  }
}

/**
 * A creation request with its null fields left out: the README's rule for every
 * POST is that null means "not given", so `expiresAt: null` inherits the
 * caller's expiry like a missing field rather than asking for none (which a
 * caller that expires may not grant). Only PATCH gives null its own meaning.
 */
export function withoutNullFields(input: ApiKeyCreateInput): ApiKeyCreateInput {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null)) as ApiKeyCreateInput;
}

/** What a new key inherits from its creator when the request leaves a field out. */
export function inheritFromCaller(caller: VerifiedApiKey, wanted: ApiKeyUpdateInput): Required<Omit<ApiKeyUpdateInput, 'name'>> {
  return {
    permissions: wanted.permissions ?? caller.permissions,
    domainRestrictions: wanted.domainRestrictions ?? caller.domainRestrictions,
    ipRestrictions: wanted.ipRestrictions ?? caller.ipRestrictions,
    expiresAt: wanted.expiresAt === undefined ? caller.expiresAt : wanted.expiresAt,
  };
}
