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
