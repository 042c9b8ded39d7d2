import type { VerifiedApiKey } from '@mailroom/contracts';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { assertManageable } from './manage-rules';

const key = (overrides: Partial<VerifiedApiKey> = {}): VerifiedApiKey =>
  Object.assign({ keyId: 'key_01J00000000000000000000000', mode: 'live', permissions: ['api-keys:*'], domainRestrictions: [], ipRestrictions: [], expiresAt: null }, overrides);

function refusal(caller: VerifiedApiKey, target: VerifiedApiKey): string {
  try {
    assertManageable(caller, target);
  } catch (error) {
    expect((error as DomainError).code).toBe(ErrorCode.Forbidden);
    return (error as DomainError).message;
  }
  return 'allowed';
}

describe(assertManageable.name, () => {
  const target = (overrides: Partial<VerifiedApiKey>) => key(Object.assign({ keyId: 'key_01JTARGET00000000000000000' }, overrides));

  it('lets a key manage keys within its own reach, itself included', () => {
    expect(refusal(key({ permissions: ['*'] }), target({ permissions: ['*'] }))).toBe('allowed');
    expect(refusal(key(), target({ domainRestrictions: ['a.example'] }))).toBe('allowed');
    expect(refusal(key({ expiresAt: '2030-01-01T00:00:00.000Z' }), key({ expiresAt: '2030-01-01T00:00:00.000Z' }))).toBe('allowed');
  });

  it('refuses a key that reaches further, naming it and why', () => {
    expect(refusal(key(), target({ permissions: ['*'] }))).toBe(
      'This API key cannot change or delete key_01JTARGET00000000000000000, which holds more than it does. This API key cannot grant permissions it does not hold: *.',
    );
    expect(refusal(key({ domainRestrictions: ['a.example'] }), target({}))).toMatch(/domainRestrictions must stay within/);
    expect(refusal(key({ ipRestrictions: ['10.0.0.0/8'] }), target({ ipRestrictions: ['192.168.0.0/16'] }))).toMatch(/ipRestrictions must stay within/);
    expect(refusal(key({ expiresAt: '2030-01-01T00:00:00.000Z' }), target({ expiresAt: null }))).toMatch(/expiresAt cannot be later/);
  });
});
