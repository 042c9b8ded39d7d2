import { enhancedStatusOf } from './mailbox-refusal';

/**
 * A reply to RCPT TO that says the transaction takes no more recipients (RFC 5321 §4.5.3.1.10): 452 with enhanced
 * code 4.5.3 or none, or the 552 5.5.3 some servers give instead, which the RFC asks clients to treat as temporary.
 * Not a mailbox short of room (452 4.2.2), nor any other 452 or 552.
 */
export function repliesTooManyRecipients(code: number | null, reply: string): boolean {
  const enhanced = enhancedStatusOf(reply);
  if (code === 452) return enhanced === null || enhanced === '4.5.3';
  return code === 552 && enhanced === '5.5.3';
}
