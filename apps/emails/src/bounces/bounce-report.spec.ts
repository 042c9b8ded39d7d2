import { readBounceReport } from './bounce-report';

describe(readBounceReport.name, () => {
  it('reads the recipient as a send stores it, with the email and the server reply', () => {
    expect(readBounceReport({ emailId: 'email_1', recipient: 'Reader <Reader@Bücher.de>', smtp: { code: 550, reply: '550 5.1.1 No such user' } })).toEqual({
      report: { address: 'reader@xn--bcher-kva.de', emailId: 'email_1', smtpCode: 550, smtpReply: '550 5.1.1 No such user', details: '550 5.1.1 No such user', suppress: true },
    });
  });

  it('applies a report without an email or an SMTP reply, saying so on the suppression list', () => {
    expect(readBounceReport({ recipient: 'gone@example.com' })).toEqual({
      report: { address: 'gone@example.com', emailId: null, smtpCode: null, smtpReply: null, details: 'bounce reported', suppress: true },
    });
    expect(readBounceReport({ recipient: 'gone@example.com', smtp: { reply: '  ' } })).toMatchObject({ report: { smtpCode: null, details: 'bounce reported', suppress: true } });
  });

  // As at delivery (mailbox-refusal.ts), with a DSN answering for its recipient alone as its own RCPT TO reply does.
  it.each([
    [{ code: 552, reply: '552 5.2.2 mailbox full' }, false],
    [{ code: 550, reply: '550 5.7.1 blocked as spam' }, false],
    [{ code: 554, reply: '554 5.6.0 content rejected' }, false],
    [{ code: 550, reply: '550 5.4.4 unroutable' }, false],
    [{ code: 554, reply: '554 delivery failed' }, false],
    [{ code: 552 }, false],
    [{ reply: '552 5.2.2 mailbox full' }, false],
    // No code to read: the publisher says only that the address bounced, as with no smtp at all.
    [{ reply: 'mailbox full' }, true],
    [{ reply: 'user unknown' }, true],
    [{ code: 550, reply: '550 5.1.1 user unknown' }, true],
    [{ code: 550, reply: '550-5.2.1 account disabled\n550 5.2.1 sorry' }, true],
    [{ code: 550, reply: '550 user unknown' }, true],
    [{ code: 553 }, true],
    [{ reply: '551 user not local' }, true],
    [{ reply: '5.1.1 user unknown' }, true],
  ])('suppresses only when the reply says the mailbox is bad: %j suppresses %s', (smtp, suppress) => {
    expect(readBounceReport({ recipient: 'reader@example.com', smtp })).toMatchObject({ report: { suppress } });
  });

  it("ignores Mailroom's own bounce, which says whether it suppressed the address, even without the origin header", () => {
    for (const suppressed of [false, true]) {
      expect(readBounceReport({ emailId: 'email_1', recipient: 'kept@example.com', smtp: { code: 550, reply: '550 sender refused' }, suppressed })).toEqual({
        ignored: 'carries suppressed, as the bounces Mailroom delivery wrote (and applied) do',
      });
    }
  });

  it('ignores a report whose recipient is missing or no address a send would accept', () => {
    for (const recipient of [undefined, 42, '', 'not an address', 'a@b@c.com', `${'x'.repeat(300)}@example.com`]) {
      expect(readBounceReport({ emailId: 'email_1', recipient })).toEqual({ ignored: 'no valid recipient address' });
    }
  });

  it('ignores a code that is no permanent failure: a 4xx delayed DSN, a 2xx, or no number at all', () => {
    for (const code of [421, 450, 250, 600, 550.5, '550']) {
      expect(readBounceReport({ recipient: 'later@example.com', smtp: { code, reply: `${code} try later` } })).toEqual({ ignored: 'smtp.code is no permanent (5xx) failure' });
    }
    expect(readBounceReport({ recipient: 'later@example.com', smtp: { code: 599 } })).toMatchObject({ report: { smtpCode: 599 } });
  });

  it('reads the code off a reply given without smtp.code, as the suppression rule does: a 4xx reply alone is ignored too', () => {
    for (const reply of ['421 4.4.2 try later', '450-mailbox busy', ' 250 ok']) {
      expect(readBounceReport({ recipient: 'later@example.com', smtp: { reply } })).toEqual({ ignored: 'the code smtp.reply starts with is no permanent (5xx) failure' });
    }
    expect(readBounceReport({ recipient: 'gone@example.com', smtp: { reply: '550 5.1.1 no such user' } })).toMatchObject({ report: { suppress: true } });
    expect(readBounceReport({ recipient: 'gone@example.com', smtp: { reply: 'user unknown' } })).toMatchObject({ report: { suppress: true } });
  });
  // The recipient showed smtpCode null beside smtpReply '550 5.1.1 …', though the suppression rule had read 550 off it.
  it('keeps the code read off a reply given without smtp.code as the recipient\'s smtpCode, and none when the reply starts with no code', () => {
    expect(readBounceReport({ recipient: 'gone@example.com', smtp: { reply: '550 5.1.1 user unknown' } })).toMatchObject({
      report: { smtpCode: 550, smtpReply: '550 5.1.1 user unknown' },
    });
    expect(readBounceReport({ recipient: 'gone@example.com', smtp: { reply: '553-5.1.3 bad address\r\n553 5.1.3 sorry' } })).toMatchObject({ report: { smtpCode: 553 } });
    for (const reply of ['5.1.1 user unknown', 'user unknown']) {
      expect(readBounceReport({ recipient: 'gone@example.com', smtp: { reply } })).toMatchObject({ report: { smtpCode: null, smtpReply: reply } });
    }
    expect(readBounceReport({ recipient: 'gone@example.com', smtp: { code: 551, reply: '550 5.1.1 user unknown' } })).toMatchObject({ report: { smtpCode: 551 } });
  });

  // A publisher's smtp as one string, or a reply of several lines as an array of them, said nothing readable: the
  // report was applied as one with no reply at all, which suppresses, so a full mailbox was put on the list for good.
  it('ignores a report whose smtp is no object, or whose smtp.reply is no string, rather than reading it as no reply', () => {
    expect(readBounceReport({ recipient: 'full@example.com', smtp: '552 5.2.2 mailbox full' })).toEqual({ ignored: 'smtp: must be an object of code and reply' });
    expect(readBounceReport({ recipient: 'full@example.com', smtp: ['552 5.2.2 mailbox full'] })).toEqual({ ignored: 'smtp: must be an object of code and reply' });
    expect(readBounceReport({ recipient: 'full@example.com', smtp: { reply: ['552-5.2.2 mailbox full', '552 5.2.2 over quota'] } })).toEqual({
      ignored: 'smtp.reply: must be a string',
    });
    expect(readBounceReport({ recipient: 'full@example.com', smtp: { code: 552, reply: 552 } })).toEqual({ ignored: 'smtp.reply: must be a string' });
  });

  it('reads a null smtp or smtp.reply as none given', () => {
    expect(readBounceReport({ recipient: 'gone@example.com', smtp: null })).toMatchObject({ report: { smtpCode: null, smtpReply: null, suppress: true } });
    expect(readBounceReport({ recipient: 'gone@example.com', smtp: { code: 550, reply: null } })).toMatchObject({ report: { smtpCode: 550, smtpReply: null, suppress: true } });
  });

  it('keeps the first 1,000 characters of a long reply, as delivery does', () => {
    const reply = `550 ${'x'.repeat(3000)}`;
    const reading = readBounceReport({ recipient: 'long@example.com', smtp: { code: 550, reply } });
    expect(reading).toMatchObject({ report: { smtpReply: reply.slice(0, 1000), details: reply.slice(0, 1000) } });
  });
});
