/** The DKIM key record (RFC 6376 §3.6.1) for a base64 SubjectPublicKeyInfo. */
export function dkimTxtValue(publicKeyBase64: string): string {
  return `v=DKIM1; k=rsa; p=${publicKeyBase64}`;
}

/**
 * RFC 1035 §3.3.14: one TXT character-string holds at most 255 octets. A
 * 2048-bit key's record is about 410, so it is sent as several strings that
 * verifiers concatenate (RFC 6376 §3.6.2.2). One long string is a malformed answer.
 */
export function splitTxt(text: string, size = 255): string[] {
  if (text.length === 0) return [''];
  const parts: string[] = [];
  // The record is ASCII (base64 and tags), so characters are octets.
  for (let offset = 0; offset < text.length; offset += size) parts.push(text.slice(offset, offset + size));
  return parts;
}
