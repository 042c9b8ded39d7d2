import { transitionRecipient } from './recipient-transition';

describe(transitionRecipient.name, () => {
  const now = new Date('2030-01-01T00:00:00.000Z');
  const mx = { schedule: [60_000, 300_000], acceptedStatus: 'delivered' as const, now };

  it('delivers on 2xx in mx mode and only sends through a relay', () => {
    const accepted = { outcome: { kind: 'accepted' as const, code: 250, reply: '250 2.0.0 Ok' } };
    expect(transitionRecipient(0, accepted, mx)).toMatchObject({ status: 'delivered', attempts: 1, smtpCode: 250, events: [{ type: 'email.delivered' }] });
    expect(transitionRecipient(0, accepted, { ...mx, acceptedStatus: 'sent' })).toMatchObject({ status: 'sent', events: [{ type: 'email.sent' }] });
  });

  it('bounces and suppresses on 5xx', () => {
    const result = transitionRecipient(0, { outcome: { kind: 'permanent', code: 550, reply: '550 5.1.1 No such user', host: 'mx1.example.com' } }, mx);
    expect(result).toMatchObject({ status: 'bounced', smtpReply: '550 5.1.1 No such user', smtpHost: 'mx1.example.com', suppress: { reason: 'bounce', details: '550 5.1.1 No such user' } });
    expect(result.events).toEqual([{ type: 'email.bounced', extra: { smtp: { code: 550, reply: '550 5.1.1 No such user', host: 'mx1.example.com' }, suppressed: true } }]);
  });

  it('names no server when none was tried (no MX host resolved)', () => {
    const result = transitionRecipient(0, { outcome: { kind: 'temporary', code: null, reply: 'no mail host could be reached' } }, mx);
    expect(result).toMatchObject({ status: 'deferred', smtpHost: null });
    expect(result.events[0].extra).toMatchObject({ smtp: { code: null, host: null } });
  });

  it('keeps the first 1,000 characters of a longer reply, in the recipient and in its events', () => {
    const reply = `550-5.1.1 ${'x'.repeat(5000)}`;
    const result = transitionRecipient(0, { outcome: { kind: 'permanent', code: 550, reply } }, mx);
    expect(result.smtpReply).toBe(reply.slice(0, 1000));
    expect(result.events[0].extra).toMatchObject({ smtp: { code: 550, reply: reply.slice(0, 1000) } });
    expect(result.suppress?.details).toBe(reply.slice(0, 1000));
  });

  it('keeps a reply holding NUL, which Postgres cannot store, with U+FFFD in its place', () => {
    const result = transitionRecipient(0, { outcome: { kind: 'permanent', code: 550, reply: '550 no\u0000such\u0000user', recipientRefused: true } }, mx);
    expect(result.smtpReply).toBe('550 no\uFFFDsuch\uFFFDuser');
    expect(result.events[0].extra).toMatchObject({ smtp: { reply: '550 no\uFFFDsuch\uFFFDuser' } });
    expect(result.suppress?.details).toBe('550 no\uFFFDsuch\uFFFDuser');
  });

  it('bounces without suppressing when the 5xx is about the message, not the mailbox', () => {
    const result = transitionRecipient(0, { outcome: { kind: 'permanent', code: 552, reply: '552 5.3.4 Message size exceeds fixed limit' } }, mx);
    expect(result).toMatchObject({ status: 'bounced', attempts: 1, smtpCode: 552 });
    expect(result.suppress).toBeUndefined();
    expect(result.events[0].extra).toMatchObject({ suppressed: false });
  });

  it('bounces without suppressing when the 5xx refused the envelope sender', () => {
    const result = transitionRecipient(0, { outcome: { kind: 'permanent', code: 550, reply: '550 5.7.1 Sender rejected', senderRefused: true } }, mx);
    expect(result).toMatchObject({ status: 'bounced', attempts: 1, smtpCode: 550, events: [{ type: 'email.bounced' }] });
    expect(result.suppress).toBeUndefined();
    expect(result.events[0].extra).toMatchObject({ suppressed: false });
  });

  it('defers on a temporary failure until the schedule is used up', () => {
    const temporary = { outcome: { kind: 'temporary' as const, code: 451, reply: '451 4.2.2 Mailbox full' } };
    expect(transitionRecipient(0, temporary, mx)).toMatchObject({
      status: 'deferred',
      attempts: 1,
      nextAttemptAt: new Date('2030-01-01T00:01:00.000Z'),
      events: [{ type: 'email.delivery_delayed', extra: { nextAttemptAt: '2030-01-01T00:01:00.000Z' } }],
    });
    expect(transitionRecipient(1, temporary, mx)).toMatchObject({ status: 'deferred', attempts: 2, nextAttemptAt: new Date('2030-01-01T00:05:00.000Z') });
    expect(transitionRecipient(2, temporary, mx)).toMatchObject({ status: 'failed', attempts: 3, nextAttemptAt: null, events: [{ type: 'email.failed' }] });
  });

  it('follows the simulator: fail now, retry soon, complain after delivery, suppressed', () => {
    const temporary = { kind: 'temporary' as const, code: 421, reply: '421 simulated' };
    expect(transitionRecipient(0, { outcome: temporary, failNow: true }, mx).status).toBe('failed');
    expect(transitionRecipient(0, { outcome: temporary, retryAfterMs: 1000 }, mx).nextAttemptAt).toEqual(new Date('2030-01-01T00:00:01.000Z'));
    const complained = transitionRecipient(0, { outcome: { kind: 'accepted', code: 250, reply: '250 ok' }, complained: true }, mx);
    expect(complained.events.map((event) => event.type)).toEqual(['email.delivered', 'email.complained']);
    expect(complained.suppress?.reason).toBe('complaint');
    expect(transitionRecipient(0, { outcome: { kind: 'permanent', code: null, reply: 'on the suppression list' }, suppressed: true }, mx)).toMatchObject({
      status: 'suppressed',
      attempts: 0,
      events: [{ type: 'email.suppressed' }],
    });
  });
});
