import { randomBytes } from 'node:crypto';
import { SecretBox } from '@mailroom/auth';
import type { SenderIdentity } from '@mailroom/contracts';
import { DkimKeyNotOpenedError, openSenderIdentity } from './open-sender-identity';

const PEM = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n';
const boxWithNewKey = () => new SecretBox(randomBytes(32).toString('base64'));

function identityWith(dkim: SenderIdentity['dkim']): SenderIdentity {
  return { domainId: 'dom_1', name: 'acme.test', status: 'verified', dkim, trackingBaseUrl: 'https://t.acme.test', openTracking: true, clickTracking: false };
}

describe(openSenderIdentity.name, () => {
  const box = boxWithNewKey();

  it('opens the key sealed as the domains service stores it (the domain id as associated data)', () => {
    const opened = openSenderIdentity(identityWith({ selector: 'mr1', privateKeySealed: box.encrypt(PEM, 'dom_1') }), box);
    expect(opened).toEqual({
      domainId: 'dom_1', name: 'acme.test', status: 'verified', trackingBaseUrl: 'https://t.acme.test', openTracking: true, clickTracking: false,
      dkim: { selector: 'mr1', privateKeyPem: PEM },
    });
  });

  it('takes the plaintext PEM of a domains replica older than the sealed field (a rolling upgrade)', () => {
    expect(openSenderIdentity(identityWith({ selector: 'mr1', privateKeyPem: PEM }), box).dkim).toEqual({ selector: 'mr1', privateKeyPem: PEM });
  });

  it('prefers the sealed key when a reply carries both', () => {
    const sealed = box.encrypt(PEM, 'dom_1');
    expect(openSenderIdentity(identityWith({ selector: 'mr1', privateKeySealed: sealed, privateKeyPem: 'stale' }), box).dkim.privateKeyPem).toBe(PEM);
  });

  it('refuses a key sealed under another ENCRYPTION_KEY, naming the cause and neither the key nor the sealed value', () => {
    const sealed = boxWithNewKey().encrypt(PEM, 'dom_1');
    const open = () => openSenderIdentity(identityWith({ selector: 'mr1', privateKeySealed: sealed }), box);
    expect(open).toThrow(DkimKeyNotOpenedError);
    expect(open).toThrow(/DKIM key of acme\.test.*does not open with this service's ENCRYPTION_KEY/);
    let message = '';
    try {
      open();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toContain(sealed);
    expect(message).not.toContain('BEGIN');
  });

  it('names both key ids when the domains service says which key sealed it', () => {
    const other = boxWithNewKey();
    const sealed = other.encrypt(PEM, 'dom_1');
    expect(() => openSenderIdentity(identityWith({ selector: 'mr1', privateKeySealed: sealed, sealedWithKeyId: other.keyId }), box)).toThrow(
      `(the domains service's key id is ${other.keyId}, this service's ${box.keyId})`,
    );
  });

  it('calls a key that does not open under the very same key damaged, not a key mismatch', () => {
    const sealed = box.encrypt(PEM, 'dom_1').replace(/\.([^.]+)$/, '.AAAA$1');
    expect(() => openSenderIdentity(identityWith({ selector: 'mr1', privateKeySealed: sealed, sealedWithKeyId: box.keyId }), box)).toThrow(
      `the sealed DKIM key of acme.test does not open although both services have ENCRYPTION_KEY id ${box.keyId}`,
    );
  });

  it('opens a key sealed under a previous key (ENCRYPTION_KEY_PREVIOUS), as during a rotation', () => {
    const oldKey = randomBytes(32).toString('base64');
    const rotated = new SecretBox(randomBytes(32).toString('base64'), [oldKey]);
    const sealed = new SecretBox(oldKey).encrypt(PEM, 'dom_1');
    expect(openSenderIdentity(identityWith({ selector: 'mr1', privateKeySealed: sealed, sealedWithKeyId: new SecretBox(oldKey).keyId }), rotated).dkim.privateKeyPem).toBe(PEM);
  });

  it('names ENCRYPTION_KEY_PREVIOUS as the way out of a key mismatch, and every key id this service holds', () => {
    const other = boxWithNewKey();
    const rotated = new SecretBox(randomBytes(32).toString('base64'), [randomBytes(32).toString('base64')]);
    const sealed = other.encrypt(PEM, 'dom_1');
    expect(() => openSenderIdentity(identityWith({ selector: 'mr1', privateKeySealed: sealed, sealedWithKeyId: other.keyId }), rotated)).toThrow(
      `the DKIM key of acme.test, sealed by the domains service, does not open with this service's ENCRYPTION_KEY or ENCRYPTION_KEY_PREVIOUS ` +
        `(the domains service's key id is ${other.keyId}, this service's ${rotated.keyId}, previous ${rotated.previousKeyIds[0]}): ` +
        `give the emails service the key the domains service seals with, as ENCRYPTION_KEY or (during a rotation) in ENCRYPTION_KEY_PREVIOUS`,
    );
  });

  it('calls a key damaged when the domains service sealed it under one of this service\'s previous keys', () => {
    const oldKey = randomBytes(32).toString('base64');
    const rotated = new SecretBox(randomBytes(32).toString('base64'), [oldKey]);
    const oldId = new SecretBox(oldKey).keyId;
    const sealed = new SecretBox(oldKey).encrypt(PEM, 'dom_1').replace(/\.([^.]+)$/, '.AAAA$1');
    expect(() => openSenderIdentity(identityWith({ selector: 'mr1', privateKeySealed: sealed, sealedWithKeyId: oldId }), rotated)).toThrow(
      `the sealed DKIM key of acme.test does not open although both services have ENCRYPTION_KEY id ${oldId}`,
    );
  });

  it('refuses a sealed key copied from another domain (the domain id is bound to it)', () => {
    expect(() => openSenderIdentity(identityWith({ selector: 'mr1', privateKeySealed: box.encrypt(PEM, 'dom_2') }), box)).toThrow(DkimKeyNotOpenedError);
  });

  it('refuses a reply that carries no key at all', () => {
    expect(() => openSenderIdentity(identityWith({ selector: 'mr1' }), box)).toThrow('the domains service sent no DKIM key for acme.test');
  });
});
