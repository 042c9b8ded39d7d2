import { enhancedStatusOf, saysTheMailboxIsBad } from './mailbox-refusal';
import { SmtpOutcome } from './smtp-outcome';

describe(saysTheMailboxIsBad.name, () => {
  const permanent = (code: number | null, reply: string, extra: Partial<SmtpOutcome> = {}): SmtpOutcome => Object.assign({ kind: 'permanent' as const, code, reply }, extra);

  it('reads the enhanced code of a reply line, a continuation line or a bare one', () => {
    expect(enhancedStatusOf('550 5.1.1 No such user')).toBe('5.1.1');
    expect(enhancedStatusOf('550-5.1.1 The email account that you tried to reach does not exist\n550 5.1.1 Try again')).toBe('5.1.1');
    expect(enhancedStatusOf('556 5.1.10 example.test accepts no mail')).toBe('5.1.10');
    expect(enhancedStatusOf('5.7.0 acme.test is no longer a sending domain')).toBe('5.7.0');
    expect(enhancedStatusOf('550 No such user here')).toBeNull();
    expect(enhancedStatusOf('550 5.1.1.1 not a status code')).toBeNull();
  });

  it.each([
    ['550 5.1.1 No such user'],
    ['550 5.1.0 Address rejected'],
    ['550 5.1.2 example.test does not exist'],
    ['553 5.1.3 Bad recipient address syntax'],
    ['551 5.1.6 User has moved'],
    ['556 5.1.10 example.test accepts no mail (null MX, RFC 7505)'],
    ['550 5.2.1 The email account that you tried to reach is disabled'],
  ])('suppresses on a mailbox status, at RCPT or at DATA: %s', (reply) => {
    const code = Number(reply.slice(0, 3));
    expect(saysTheMailboxIsBad(permanent(code, reply))).toBe(true);
    expect(saysTheMailboxIsBad(permanent(code, reply, { recipientRefused: true }))).toBe(true);
  });

  it.each([
    ['552 5.3.4 Message size exceeds fixed limit'],
    ['550 5.6.0 Content rejected'],
    ['554 5.7.1 Message rejected as spam'],
    ['550 5.7.1 Client host blocked by policy'],
    ['550 5.4.4 the mail hosts of example.test resolve only to non-public addresses'],
    ['552 5.2.2 Mailbox full'],
    ['550 5.1.8 Bad sender address'],
    ['550 4.2.2 Mailbox full'],
  ])('bounces but does not suppress a refusal about the message, policy, routing or a full mailbox: %s', (reply) => {
    expect(saysTheMailboxIsBad(permanent(Number(reply.slice(0, 3)), reply, { recipientRefused: true }))).toBe(false);
  });

  it('suppresses a plain 550, 551 or 553 only when it answered the recipient itself', () => {
    for (const code of [550, 551, 553]) {
      expect(saysTheMailboxIsBad(permanent(code, `${code} No such user here`, { recipientRefused: true }))).toBe(true);
      expect(saysTheMailboxIsBad(permanent(code, `${code} Rejected`))).toBe(false);
    }
    expect(saysTheMailboxIsBad(permanent(554, '554 Transaction failed', { recipientRefused: true }))).toBe(false);
    expect(saysTheMailboxIsBad(permanent(552, '552 Too much mail', { recipientRefused: true }))).toBe(false);
  });

  it('never suppresses on a refused sender or on anything but a permanent outcome', () => {
    expect(saysTheMailboxIsBad(permanent(550, '550 5.1.1 Sender unknown', { senderRefused: true }))).toBe(false);
    expect(saysTheMailboxIsBad({ kind: 'temporary', code: 450, reply: '450 5.1.1 odd but temporary', recipientRefused: true })).toBe(false);
  });

  it('never suppresses on a reply to a message that several recipients shared: it cannot say whose mailbox is bad', () => {
    expect(saysTheMailboxIsBad(permanent(550, '550 5.1.1 Recipient address rejected', { sharedWithOthers: true }))).toBe(false);
    expect(saysTheMailboxIsBad(permanent(550, '550 5.1.1 Recipient address rejected'))).toBe(true);
  });
});
