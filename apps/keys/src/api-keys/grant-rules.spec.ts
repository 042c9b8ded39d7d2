import type { VerifiedApiKey } from '@mailroom/contracts';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { assertWithinCaller, inheritFromCaller, withoutNullFields } from './grant-rules';

function caller(overrides: Partial<VerifiedApiKey> = {}): VerifiedApiKey {
  return { keyId: 'key_01J00000000000000000000000', mode: 'live', permissions: ['*'], domainRestrictions: [], ipRestrictions: [], expiresAt: null, ...overrides };
}

function forbidden(run: () => void): DomainError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(ErrorCode.Forbidden);
    return error as DomainError;
  }
  throw new Error('expected a forbidden error');
}

describe('grant rules', () => {
  describe(assertWithinCaller.name, () => {
    it('lets a * key grant anything, including *', () => {
      expect(() => assertWithinCaller(caller(), { permissions: ['*'], ipRestrictions: [], domainRestrictions: [], expiresAt: null })).not.toThrow();
    });

    it('refuses permissions the caller does not hold, naming them', () => {
      const error = forbidden(() => assertWithinCaller(caller({ permissions: ['api-keys:*'] }), { permissions: ['api-keys:*', 'emails:send'] }));
      expect(error.message).toContain('emails:send');
      expect(() => assertWithinCaller(caller({ permissions: ['api-keys:*'] }), { permissions: ['api-keys:*'] })).not.toThrow();
    });

    it('grants * only from *', () => {
      forbidden(() => assertWithinCaller(caller({ permissions: ['api-keys:*', 'emails:send', 'domains:*'] }), { permissions: ['*'] }));
    });

    it('keeps domainRestrictions within the caller’s and refuses to lift them', () => {
      const restricted = caller({ domainRestrictions: ['a.example', 'b.example'] });
      expect(() => assertWithinCaller(restricted, { domainRestrictions: ['a.example'] })).not.toThrow();
      forbidden(() => assertWithinCaller(restricted, { domainRestrictions: ['c.example'] }));
      forbidden(() => assertWithinCaller(restricted, { domainRestrictions: [] }));
      expect(() => assertWithinCaller(caller(), { domainRestrictions: ['c.example'] })).not.toThrow();
    });

    it('keeps ipRestrictions within the caller’s ranges and refuses to lift them', () => {
      const restricted = caller({ ipRestrictions: ['10.0.0.0/8'] });
      expect(() => assertWithinCaller(restricted, { ipRestrictions: ['10.1.0.0/16', '10.2.3.4'] })).not.toThrow();
      forbidden(() => assertWithinCaller(restricted, { ipRestrictions: ['0.0.0.0/0'] }));
      forbidden(() => assertWithinCaller(restricted, { ipRestrictions: ['192.168.0.1'] }));
      forbidden(() => assertWithinCaller(restricted, { ipRestrictions: [] }));
    });

    it('refuses an expiry later than the caller’s, or none at all', () => {
      const expiring = caller({ expiresAt: '2030-01-01T00:00:00.000Z' });
      expect(() => assertWithinCaller(expiring, { expiresAt: '2029-12-31T00:00:00.000Z' })).not.toThrow();
      forbidden(() => assertWithinCaller(expiring, { expiresAt: '2030-01-02T00:00:00.000Z' }));
      forbidden(() => assertWithinCaller(expiring, { expiresAt: null }));
      expect(() => assertWithinCaller(caller(), { expiresAt: null })).not.toThrow();
    });

    it('accepts a request that leaves every field out (the new key inherits)', () => {
      expect(() => assertWithinCaller(caller({ permissions: ['api-keys:*'], ipRestrictions: ['10.0.0.0/8'], domainRestrictions: ['a.example'], expiresAt: '2030-01-01T00:00:00.000Z' }), {})).not.toThrow();
    });
  });

  describe(inheritFromCaller.name, () => {
    it('fills omitted fields from the caller and keeps the given ones', () => {
      const parent = caller({ permissions: ['api-keys:*', 'emails:send'], ipRestrictions: ['10.0.0.0/8'], domainRestrictions: ['a.example'], expiresAt: '2030-01-01T00:00:00.000Z' });
      expect(inheritFromCaller(parent, {})).toEqual({
        permissions: ['api-keys:*', 'emails:send'],
        ipRestrictions: ['10.0.0.0/8'],
        domainRestrictions: ['a.example'],
        expiresAt: '2030-01-01T00:00:00.000Z',
      });
      expect(inheritFromCaller(parent, { permissions: ['emails:send'], ipRestrictions: ['10.1.0.0/16'], expiresAt: '2029-01-01T00:00:00.000Z' })).toEqual({
        permissions: ['emails:send'],
        ipRestrictions: ['10.1.0.0/16'],
        domainRestrictions: ['a.example'],
        expiresAt: '2029-01-01T00:00:00.000Z',
      });
    });
  });

  describe(withoutNullFields.name, () => {
    it('reads a creation request’s null fields as left out, so they inherit like missing ones', () => {
      const parent = caller({ permissions: ['api-keys:*'], ipRestrictions: ['10.0.0.0/8'], domainRestrictions: ['a.example'], expiresAt: '2030-01-01T00:00:00.000Z' });
      const wanted = withoutNullFields({ name: 'k', mode: null as never, permissions: null as never, ipRestrictions: null as never, domainRestrictions: null as never, expiresAt: null });
      expect(wanted).toEqual({ name: 'k' });
      expect(() => assertWithinCaller(parent, wanted)).not.toThrow();
      expect(inheritFromCaller(parent, wanted)).toEqual({
        permissions: ['api-keys:*'],
        ipRestrictions: ['10.0.0.0/8'],
        domainRestrictions: ['a.example'],
        expiresAt: '2030-01-01T00:00:00.000Z',
      });
    });
  });
});
