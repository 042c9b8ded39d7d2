import { SmtpOutcome } from '../smtp-outcome';
import { saysTooManyRecipients } from './send-in-transactions';

const refused = (code: number, reply: string): SmtpOutcome => ({ kind: 'temporary', code, reply, recipientRefused: true });

describe('saysTooManyRecipients', () => {
  it('reads a 452 to RCPT TO as the transaction being full, with enhanced code 4.5.3 or none', () => {
    expect(saysTooManyRecipients(refused(452, '452 4.5.3 Too many recipients'))).toBe(true);
    expect(saysTooManyRecipients(refused(452, '452-4.5.3 Your message has too many recipients.'))).toBe(true);
    expect(saysTooManyRecipients(refused(452, '452 Too many recipients received this hour'))).toBe(true);
    expect(saysTooManyRecipients({ kind: 'temporary', code: 552, reply: '552 5.5.3 Too many recipients', recipientRefused: true })).toBe(true);
  });

  it('does not read a mailbox short of room, another code, or a reply to the message as the transaction being full', () => {
    expect(saysTooManyRecipients(refused(452, '452 4.2.2 Mailbox full'))).toBe(false);
    expect(saysTooManyRecipients(refused(451, '451 4.5.3 Too many recipients'))).toBe(false);
    expect(saysTooManyRecipients(refused(552, '552 5.2.2 Mailbox full'))).toBe(false);
    expect(saysTooManyRecipients({ kind: 'temporary', code: 452, reply: '452 4.5.3 Too many recipients' })).toBe(false);
    expect(saysTooManyRecipients(undefined)).toBe(false);
  });
});
