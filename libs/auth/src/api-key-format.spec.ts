import { generateApiKey, hashApiKey, hashesEqual, keyHint, LIVE_PREFIX, parseApiKey, TEST_PREFIX } from './api-key-format';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Replaces the character at `index` with another character of the alphabet, as a typo would. */
function typo(key: string, index: number): string {
  const current = key[index];
  const replacement = ALPHABET[(ALPHABET.indexOf(current) + 1) % ALPHABET.length];
  return key.slice(0, index) + replacement + key.slice(index + 1);
}

describe('API key format', () => {
  it('generates live keys as mr_ + 43 base62 characters of entropy + a 6-character checksum', () => {
    const key = generateApiKey('live');
    expect(key).toMatch(/^mr_[0-9A-Za-z]{49}$/);
    expect(key.startsWith(TEST_PREFIX)).toBe(false);
    expect(parseApiKey(key)).toBe('live');
  });

  it('generates test keys as mr_test_ + the same body', () => {
    const key = generateApiKey('test');
    expect(key).toMatch(/^mr_test_[0-9A-Za-z]{49}$/);
    expect(parseApiKey(key)).toBe('test');
  });

  it('never generates the same key twice', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey('live')));
    expect(keys.size).toBe(200);
  });

  it('rejects a one-character typo anywhere in the entropy or the checksum', () => {
    const key = generateApiKey('live');
    for (let index = LIVE_PREFIX.length; index < key.length; index += 1) {
      expect(parseApiKey(typo(key, index))).toBeNull();
    }
  });

  it('rejects a test key whose prefix was changed to live (the checksum covers the prefix)', () => {
    const key = generateApiKey('test');
    expect(parseApiKey(LIVE_PREFIX + key.slice(TEST_PREFIX.length))).toBeNull();
  });

  it.each([
    ['empty', ''],
    ['wrong prefix', 'sk_' + 'a'.repeat(49)],
    ['prefix only', 'mr_'],
    ['too short', generateApiKey('live').slice(0, -1)],
    ['too long', generateApiKey('live') + 'a'],
    ['non-base62 character', 'mr_' + '-'.repeat(49)],
    ['upper-case prefix', 'MR_' + generateApiKey('live').slice(3)],
  ])('rejects a malformed key (%s)', (_label, key) => {
    expect(parseApiKey(key)).toBeNull();
  });

  it('hashes to a hex SHA-256 and compares hashes in constant time', () => {
    const key = generateApiKey('live');
    const hash = hashApiKey(key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashesEqual(hash, hashApiKey(key))).toBe(true);
    expect(hashesEqual(hash, hashApiKey(generateApiKey('live')))).toBe(false);
    expect(hashesEqual(hash, hash.slice(0, 62))).toBe(false);
  });

  it('hashes the key\'s UTF-8 text with plain SHA-256, so the hashes of keys stored earlier still match', () => {
    // FIPS 180-2's test vector for "abc".
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hints with the prefix and the last four characters only', () => {
    const key = generateApiKey('test');
    expect(keyHint(key, 'test')).toBe(`mr_test_…${key.slice(-4)}`);
    expect(keyHint(key, 'test')).not.toContain(key.slice(8, 20));
  });
});
