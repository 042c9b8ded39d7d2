import type { SecretBox } from '@mailroom/auth';
import type { SenderIdentity } from '@mailroom/contracts';

/** A sender identity with its DKIM key opened: what delivery signs with. Lives only in memory. */
export interface OpenedSenderIdentity extends Omit<SenderIdentity, 'dkim'> {
  dkim: { selector: string; privateKeyPem: string };
}

/**
 * The identity's DKIM key could not be opened. The message names the likely
 * cause and the remedy, never the key or the sealed value.
 */
export class DkimKeyNotOpenedError extends Error {
  override readonly name = 'DkimKeyNotOpenedError';
}

/**
 * Opens the sealed DKIM key the domains service sends (see SenderIdentityDkim).
 * A reply from a domains replica older than the sealed field carries the PEM
 * instead, which is taken as it is, so emails can be upgraded first.
 */
export function openSenderIdentity(identity: SenderIdentity, box: SecretBox): OpenedSenderIdentity {
  const { dkim, ...rest } = identity;
  return { dkim: { selector: dkim.selector, privateKeyPem: openDkimKey(identity, box) }, ...rest };
}

function openDkimKey({ dkim, domainId, name }: SenderIdentity, box: SecretBox): string {
  if (typeof dkim.privateKeySealed === 'string') {
    try {
      return box.decrypt(dkim.privateKeySealed, domainId);
    } catch {
      throw new DkimKeyNotOpenedError(notOpenedReason(name, dkim.sealedWithKeyId, box));
    }
  }
  if (typeof dkim.privateKeyPem === 'string') return dkim.privateKeyPem;
  throw new DkimKeyNotOpenedError(`the domains service sent no DKIM key for ${name}`);
}

/**
 * GCM cannot tell a wrong key from a damaged box. The key id the domains service sends (of the key that opens
 * the stored value there) can; without it (an older replica) a different ENCRYPTION_KEY is by far the likelier
 * between two services that share a database and a bus.
 */
function notOpenedReason(name: string, sealedWithKeyId: string | undefined, box: SecretBox): string {
  if (sealedWithKeyId !== undefined && [box.keyId, ...box.previousKeyIds].includes(sealedWithKeyId)) {
    return `the sealed DKIM key of ${name} does not open although both services have ENCRYPTION_KEY id ${sealedWithKeyId}: its stored value is damaged`;
  }
  const previous = box.previousKeyIds.length ? `, previous ${box.previousKeyIds.join(', ')}` : '';
  const ids = sealedWithKeyId ? ` (the domains service's key id is ${sealedWithKeyId}, this service's ${box.keyId}${previous})` : '';
  return (
    `the DKIM key of ${name}, sealed by the domains service, does not open with this service's ENCRYPTION_KEY or ENCRYPTION_KEY_PREVIOUS${ids}: ` +
    'give the emails service the key the domains service seals with, as ENCRYPTION_KEY or (during a rotation) in ENCRYPTION_KEY_PREVIOUS'
  );
}
