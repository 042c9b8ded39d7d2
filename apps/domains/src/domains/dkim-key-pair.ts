import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

export interface DkimKeyPair {
  /** Base64 DER SubjectPublicKeyInfo, the p= of the DKIM record. */
  publicKeyBase64: string;
  privateKeyPem: string;
}

/** RFC 8301 §3.2: RSA keys of at least 1024 bits, 2048 recommended. Generated on libuv's thread pool, off the event loop. */
export async function generateDkimKeyPair(modulusLength = 2048): Promise<DkimKeyPair> {
  const { publicKey, privateKey } = await generate('rsa', {
    modulusLength,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyBase64: (publicKey as Buffer).toString('base64'), privateKeyPem: privateKey as string };
}
