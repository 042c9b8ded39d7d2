import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { parsedPrivateKey } from './parsed-private-key';

function dkimIdentity() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { dkim: { selector: 'mr1', privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }, publicKey };
}

describe(parsedPrivateKey.name, () => {
  it('parses the key of an identity once and hands out the same key object after that', () => {
    const { dkim } = dkimIdentity();
    const first = parsedPrivateKey(dkim);
    expect(parsedPrivateKey(dkim)).toBe(first);
    expect(first.type).toBe('private');
  });

  it('signs so that the public key of the pair verifies', () => {
    const { dkim, publicKey } = dkimIdentity();
    const data = Buffer.from('from:hi@acme.test');
    expect(verify('sha256', data, publicKey, sign('sha256', data, parsedPrivateKey(dkim)))).toBe(true);
  });

  it('parses a rotated key, which arrives as a new identity object, instead of reusing the old one', () => {
    const before = dkimIdentity();
    const after = dkimIdentity();
    const data = Buffer.from('x');
    parsedPrivateKey(before.dkim);
    expect(verify('sha256', data, after.publicKey, sign('sha256', data, parsedPrivateKey(after.dkim)))).toBe(true);
  });

  it('throws on a key that is not a valid PEM, so the attempt fails instead of going out unsigned', () => {
    expect(() => parsedPrivateKey({ privateKeyPem: 'not a key' })).toThrow();
  });
});
