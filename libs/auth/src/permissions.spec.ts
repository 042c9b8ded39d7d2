import { grants, missingGrants } from './permissions';

describe('permissions', () => {
  it('grants a held permission and everything to *', () => {
    expect(grants(['api-keys:*'], 'api-keys:*')).toBe(true);
    expect(grants(['*'], 'emails:send')).toBe(true);
    expect(grants(['emails:read'], 'emails:send')).toBe(false);
    expect(grants([], 'api-keys:*')).toBe(false);
  });

  it('lists what a caller would grant without holding it; * is covered only by *', () => {
    expect(missingGrants(['*'], ['*', 'emails:send'])).toEqual([]);
    expect(missingGrants(['api-keys:*'], ['api-keys:*', 'emails:send'])).toEqual(['emails:send']);
    expect(missingGrants(['api-keys:*', 'emails:send'], ['*'])).toEqual(['*']);
    expect(missingGrants(['domains:*'], [])).toEqual([]);
  });
});
