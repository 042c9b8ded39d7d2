import { parseEmailAddress } from '@mailroom/contracts';

/** The parts of an email that name its recipients as the sender wrote them. */
export interface WrittenRecipients {
  to: string[];
  cc: string[];
  bcc: string[];
}

/**
 * Each recipient, looked up by its stored lower-case address, as the sender
 * wrote it: the local part's case kept, the domain in lower-case punycode
 * (ParsedAddress.envelope). That is what RCPT TO carries, since RFC 5321 §2.4
 * leaves a local part's case to the receiving host, and what reads and events
 * show. A recipient row keeps the lower-case form, which suppressions and the
 * duplicate check compare; the spelling comes back from the email's own
 * to/cc/bcc, which keep what was written, so emails stored before this read
 * right too. An address listed twice is spelled as first listed (to, then cc,
 * then bcc), the order in which a send made it one recipient.
 */
export function recipientSpelling(email: WrittenRecipients): (address: string) => string {
  const spelled = new Map<string, string>();
  for (const written of [...email.to, ...email.cc, ...email.bcc]) {
    const parsed = parseEmailAddress(written);
    if (parsed && !spelled.has(parsed.normalized)) spelled.set(parsed.normalized, parsed.envelope);
  }
  return (address) => spelled.get(address) ?? address;
}
