import { classifyReplyCode, outcomeFromError, outcomeFromReply } from './smtp-outcome';

describe('smtp outcome', () => {
  it('classifies reply codes by their first digit', () => {
    expect(classifyReplyCode(250)).toBe('accepted');
    expect(classifyReplyCode(251)).toBe('accepted');
    expect(classifyReplyCode(421)).toBe('temporary');
    expect(classifyReplyCode(451)).toBe('temporary');
    expect(classifyReplyCode(550)).toBe('permanent');
    expect(classifyReplyCode(554)).toBe('permanent');
  });

  it('reads a reply line with an enhanced status code', () => {
    expect(outcomeFromReply('550 5.1.1 No such user')).toEqual({ kind: 'permanent', code: 550, reply: '550 5.1.1 No such user' });
    expect(outcomeFromReply('250 2.0.0 Ok: queued as ABC')).toMatchObject({ kind: 'accepted', code: 250 });
    expect(outcomeFromReply('garbage')).toMatchObject({ kind: 'temporary', code: null });
  });

  it('takes the reply of an error the server answered', () => {
    expect(outcomeFromError({ code: 'EENVELOPE', responseCode: 550, response: '550 5.1.1 No such user' })).toEqual({
      kind: 'permanent',
      code: 550,
      reply: '550 5.1.1 No such user',
    });
    expect(outcomeFromError({ code: 'EMESSAGE', responseCode: 451, response: '451 4.2.2 Mailbox full' })).toMatchObject({ kind: 'temporary', code: 451 });
  });

  it("reads a server's recipient limit at RCPT TO as temporary, the 552 5.5.3 some servers give included, and any other 552 as permanent", () => {
    const rcpt = (responseCode: number, response: string) => outcomeFromError({ code: 'EENVELOPE', command: 'RCPT TO', responseCode, response });
    expect(rcpt(552, '552 5.5.3 Too many recipients')).toMatchObject({ kind: 'temporary', code: 552, recipientRefused: true });
    expect(rcpt(452, '452 4.5.3 Too many recipients')).toMatchObject({ kind: 'temporary', code: 452, recipientRefused: true });
    expect(rcpt(552, '552 5.2.2 Mailbox full')).toMatchObject({ kind: 'permanent', code: 552, recipientRefused: true });
  });

  it('treats a refused connection, a timeout and a TLS failure as temporary', () => {
    expect(outcomeFromError({ code: 'ESOCKET', message: 'connect ECONNREFUSED 127.0.0.1:25' })).toEqual({
      kind: 'temporary',
      code: null,
      reply: 'ESOCKET: connect ECONNREFUSED 127.0.0.1:25',
      hostUnavailable: true,
    });
    expect(outcomeFromError({ code: 'ETIMEDOUT', message: 'Greeting never received' }).kind).toBe('temporary');
    expect(outcomeFromError({ code: 'ETLS', message: 'Error initiating TLS' }).kind).toBe('temporary');
  });

  it('marks a TLS failure, so that the host is asked again in plaintext', () => {
    // As nodemailer reports a handshake OpenSSL ended: a socket error carrying OpenSSL's code.
    const handshake = { code: 'ESOCKET', command: 'CONN', originalCode: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', library: 'SSL routines', message: 'tlsv1 alert protocol version' };
    expect(outcomeFromError(handshake)).toMatchObject({ kind: 'temporary', code: null, hostUnavailable: true, tlsFailed: true });
    expect(outcomeFromError({ code: 'ETLS', command: 'STARTTLS', message: 'Error initiating TLS' })).toMatchObject({ tlsFailed: true });
    expect(outcomeFromError({ code: 'ETIMEDOUT', command: 'CONN', message: 'TLS handshake timed out', timeoutType: 'UPGRADE_TIMEOUT' })).toMatchObject({ tlsFailed: true });
    expect(outcomeFromError({ code: 'ETIMEDOUT', command: 'CONN', message: 'Timeout', timeoutType: 'SOCKET_TIMEOUT' }).tlsFailed).toBeUndefined();
    expect(outcomeFromError({ code: 'ESOCKET', command: 'CONN', message: 'connect ECONNREFUSED 127.0.0.1:25' }).tlsFailed).toBeUndefined();
  });

  it('marks a host that refused the session itself, so that the next MX host is tried', () => {
    expect(outcomeFromError({ code: 'EPROTOCOL', command: 'CONN', responseCode: 421, response: '421 4.3.2 Too busy' })).toEqual({
      kind: 'temporary',
      code: 421,
      reply: '421 4.3.2 Too busy',
      hostUnavailable: true,
    });
    expect(outcomeFromError({ command: 'EHLO', responseCode: 451, response: '451 try later' }).hostUnavailable).toBe(true);
    // A 421 ends the session: to MAIL FROM, RCPT TO or the DATA command itself, none of the message went out.
    expect(outcomeFromError({ code: 'EENVELOPE', command: 'DATA', responseCode: 421, response: '421 4.3.2 Service shutting down' })).toMatchObject({ kind: 'temporary', code: 421, hostUnavailable: true });
    expect(outcomeFromError({ code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 421, response: '421 4.7.0 Too many messages' }).hostUnavailable).toBe(true);
    // After the message, the host answered for it: a 421 then is its word on the mail, which waits for the retry schedule.
    expect(outcomeFromError({ code: 'EMESSAGE', command: 'DATA', responseCode: 421, response: '421 4.3.2 Service shutting down' }).hostUnavailable).toBeUndefined();
    // Inside the mail transaction the host did answer for the mail: it decides.
    expect(outcomeFromError({ command: 'DATA', responseCode: 451, response: '451 4.2.2 Mailbox full' }).hostUnavailable).toBeUndefined();
  });

  it('never bounces on a refusal of the session itself, which says nothing about the recipients', () => {
    expect(outcomeFromError({ code: 'EAUTH', command: 'AUTH PLAIN', responseCode: 535, response: '535 5.7.8 Authentication credentials invalid' })).toEqual({
      kind: 'temporary',
      code: 535,
      reply: '535 5.7.8 Authentication credentials invalid',
      hostUnavailable: true,
    });
    expect(outcomeFromError({ command: 'CONN', responseCode: 554, response: '554 No SMTP service here' })).toMatchObject({ kind: 'temporary', hostUnavailable: true });
    expect(outcomeFromError({ command: 'EHLO', responseCode: 550, response: '550 go away' }).kind).toBe('temporary');
    // From MAIL FROM on, a 5xx is the server's word on this mail.
    expect(outcomeFromError({ command: 'RCPT TO', responseCode: 550, response: '550 5.1.1 No such user' }).kind).toBe('permanent');
  });

  it('marks a permanent refusal of the envelope sender, which bounces the mail but not the address', () => {
    expect(outcomeFromError({ command: 'MAIL FROM', responseCode: 553, response: '553 5.7.1 Sender address rejected' })).toEqual({
      kind: 'permanent',
      code: 553,
      reply: '553 5.7.1 Sender address rejected',
      senderRefused: true,
    });
    expect(outcomeFromError({ command: 'MAIL FROM', responseCode: 451, response: '451 4.3.0 try later' })).toEqual({ kind: 'temporary', code: 451, reply: '451 4.3.0 try later' });
    expect(outcomeFromError({ command: 'DATA', responseCode: 554, response: '554 5.7.1 rejected' }).senderRefused).toBeUndefined();
  });
});
