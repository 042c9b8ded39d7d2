import { randomBytes } from 'node:crypto';
import { DEVELOPMENT_ENCRYPTION_KEY, SecretBox, secretBoxFromConfig } from './secret-box';

describe(SecretBox.name, () => {
  const key = randomBytes(32).toString('base64');

  it('round-trips a secret and never stores it in the clear', () => {
    const box = new SecretBox(key);
    const sealed = box.encrypt('-----BEGIN PRIVATE KEY-----abc', 'dom_1');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('PRIVATE');
    expect(box.decrypt(sealed, 'dom_1')).toBe('-----BEGIN PRIVATE KEY-----abc');
  });

  it('uses a fresh IV every time', () => {
    const box = new SecretBox(key);
    expect(box.encrypt('same')).not.toBe(box.encrypt('same'));
  });

  it('refuses another key, another context and tampered ciphertext', () => {
    const sealed = new SecretBox(key).encrypt('secret', 'dom_1');
    expect(() => new SecretBox(randomBytes(32).toString('base64')).decrypt(sealed, 'dom_1')).toThrow();
    expect(() => new SecretBox(key).decrypt(sealed, 'dom_2')).toThrow();
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3], 'base64url');
    flipped[0] ^= 1;
    expect(() => new SecretBox(key).decrypt([...parts.slice(0, 3), flipped.toString('base64url')].join('.'), 'dom_1')).toThrow();
    expect(() => new SecretBox(key).decrypt('garbage')).toThrow('not a sealed secret');
  });

  it('names its key by an id that is the same for the same key, differs for another, and is not the key', () => {
    const id = new SecretBox(key).keyId;
    expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(new SecretBox(key).keyId).toBe(id);
    expect(new SecretBox(randomBytes(32).toString('base64')).keyId).not.toBe(id);
    expect(Buffer.from(key, 'base64').toString('hex')).not.toContain(id);
  });

  it('rejects keys that are not 32 bytes', () => {
    expect(() => new SecretBox(randomBytes(16).toString('base64'))).toThrow('32-byte');
  });

  it('requires ENCRYPTION_KEY in production and warns about the development key elsewhere', () => {
    expect(() => secretBoxFromConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: null })).toThrow('ENCRYPTION_KEY is required');
    const warn = jest.fn();
    const devBox = secretBoxFromConfig({ NODE_ENV: 'development', ENCRYPTION_KEY: null }, warn);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('PUBLIC development key'));
    expect(new SecretBox(DEVELOPMENT_ENCRYPTION_KEY).decrypt(devBox.encrypt('x'))).toBe('x');
    const box = secretBoxFromConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: key });
    expect(new SecretBox(key).decrypt(box.encrypt('y'))).toBe('y');
  });
});

describe('SecretBox with previous keys (ENCRYPTION_KEY_PREVIOUS)', () => {
  const oldKey = randomBytes(32).toString('base64');
  const olderKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  const rotated = new SecretBox(newKey, [oldKey, olderKey]);

  it('opens what a previous key sealed, and says a previous key opened it (so it needs re-sealing)', () => {
    const sealedOld = new SecretBox(oldKey).encrypt('old secret', 'wh_1');
    const sealedOlder = new SecretBox(olderKey).encrypt('older secret', 'wh_1');
    expect(rotated.open(sealedOld, 'wh_1')).toEqual({ plaintext: 'old secret', keyId: new SecretBox(oldKey).keyId, sealedWithPrevious: true });
    expect(rotated.open(sealedOlder, 'wh_1')).toEqual({ plaintext: 'older secret', keyId: new SecretBox(olderKey).keyId, sealedWithPrevious: true });
    expect(rotated.decrypt(sealedOld, 'wh_1')).toBe('old secret');
    expect(rotated.open(rotated.encrypt('new secret', 'wh_1'), 'wh_1')).toEqual({ plaintext: 'new secret', keyId: rotated.keyId, sealedWithPrevious: false });
  });

  it('seals with the current key only', () => {
    const sealed = rotated.encrypt('secret', 'dom_1');
    expect(new SecretBox(newKey).decrypt(sealed, 'dom_1')).toBe('secret');
    expect(() => new SecretBox(oldKey).decrypt(sealed, 'dom_1')).toThrow();
    expect(() => new SecretBox(olderKey).decrypt(sealed, 'dom_1')).toThrow();
  });

  it('refuses a key it does not hold, another context and tampered ciphertext under a previous key', () => {
    expect(() => rotated.open(new SecretBox(randomBytes(32).toString('base64')).encrypt('x', 'dom_1'), 'dom_1')).toThrow();
    const sealedOld = new SecretBox(oldKey).encrypt('x', 'dom_1');
    expect(() => rotated.open(sealedOld, 'dom_2')).toThrow();
    expect(() => rotated.open('garbage')).toThrow('not a sealed secret');
  });

  it('names every key it holds, the current one first', () => {
    expect(rotated.keyId).toBe(new SecretBox(newKey).keyId);
    expect(rotated.previousKeyIds).toEqual([new SecretBox(oldKey).keyId, new SecretBox(olderKey).keyId]);
    expect(new SecretBox(newKey).previousKeyIds).toEqual([]);
  });

  it('takes the previous keys from ENCRYPTION_KEY_PREVIOUS', () => {
    const box = secretBoxFromConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: [oldKey] });
    expect(box.decrypt(new SecretBox(oldKey).encrypt('y'))).toBe('y');
    expect(box.previousKeyIds).toEqual([new SecretBox(oldKey).keyId]);
  });
});
