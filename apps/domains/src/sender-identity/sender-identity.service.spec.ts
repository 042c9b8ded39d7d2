import { randomBytes } from 'node:crypto';
import { SecretBox } from '@mailroom/auth';
import type { DomainEntity } from '../database/entities/domain.entity';
import type { DomainSettings } from '../domains/domain-settings';
import type { DomainsRepository } from '../domains/domains.repository';
import { SenderIdentityService } from './sender-identity.service';

describe(SenderIdentityService.name, () => {
  const oldKey = randomBytes(32).toString('base64');
  const box = new SecretBox(randomBytes(32).toString('base64'), [oldKey]);
  const serviceWith = (sealed: string) => {
    const entity = { id: 'dom_1', name: 'acme.test', status: 'verified', dkimSelector: 'mr1', dkimPrivateKeySealed: sealed } as DomainEntity;
    const repository = { findByName: async () => entity } as unknown as DomainsRepository;
    const settings = { secretBox: box, trackingBaseUrl: 'https://t.example' } as DomainSettings;
    return new SenderIdentityService(repository, settings);
  };
  const keyIdSent = async (sealed: string) => (await serviceWith(sealed).find({ name: 'acme.test' })).identity?.dkim.sealedWithKeyId;

  it('names the key that opens the stored DKIM key: a previous one until it is sealed again, so emails can tell a mismatch from damage', async () => {
    expect(await keyIdSent(box.encrypt('pem', 'dom_1'))).toBe(box.keyId);
    expect(await keyIdSent(new SecretBox(oldKey).encrypt('pem', 'dom_1'))).toBe(new SecretBox(oldKey).keyId);
    // No key opens it here either: the current key's id, so the emails service calls it damaged.
    expect(await keyIdSent(new SecretBox(randomBytes(32).toString('base64')).encrypt('pem', 'dom_1'))).toBe(box.keyId);
  });
});
