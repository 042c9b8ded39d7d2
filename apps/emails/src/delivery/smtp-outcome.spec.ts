import { classifyReplyCode, outcomeFromError, outcomeFromReply, SmtpErrorLike } from './smtp-outcome';

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
    expect(outcomeFromError({ code: 'ETLS', command: 'STARTTLS', message: 'Error initiating TLS' }).startTlsRefused).toBeUndefined();
    // A certificate checked and refused (an enforced MTA-STS policy): for another name, or from an unknown CA.
    const altname = { code: 'ESOCKET', command: 'CONN', originalCode: 'ERR_TLS_CERT_ALTNAME_INVALID', message: "Hostname/IP does not match certificate's altnames" };
    expect(outcomeFromError(altname)).toMatchObject({ hostUnavailable: true, tlsFailed: true });
    expect(outcomeFromError({ code: 'ESOCKET', command: 'CONN', originalCode: 'SELF_SIGNED_CERT_IN_CHAIN', message: 'self-signed certificate in certificate chain' })).toMatchObject({ tlsFailed: true });
    expect(outcomeFromError({ code: 'ESOCKET', command: 'CONN', originalCode: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', message: 'unable to verify the first certificate' })).toMatchObject({ tlsFailed: true });
    expect(outcomeFromError({ code: 'ETIMEDOUT', command: 'CONN', message: 'TLS handshake timed out', timeoutType: 'UPGRADE_TIMEOUT' })).toMatchObject({ tlsFailed: true });
    expect(outcomeFromError({ code: 'ETIMEDOUT', command: 'CONN', message: 'Timeout', timeoutType: 'SOCKET_TIMEOUT' }).tlsFailed).toBeUndefined();
    expect(outcomeFromError({ code: 'ESOCKET', command: 'CONN', message: 'connect ECONNREFUSED 127.0.0.1:25' }).tlsFailed).toBeUndefined();
  });

  it('marks a refused STARTTLS command, which a host whose TLS an MTA-STS policy requires fails by', () => {
    const refused = outcomeFromError({ code: 'ETLS', command: 'STARTTLS', responseCode: 502, response: '502 5.5.1 Error: command not implemented' });
    expect(refused).toEqual({ kind: 'temporary', code: 502, reply: '502 5.5.1 Error: command not implemented', hostUnavailable: true, startTlsRefused: true });
    expect(outcomeFromError({ code: 'EPROTOCOL', command: 'EHLO', responseCode: 554, response: '554 no' }).startTlsRefused).toBeUndefined();
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
    // After the message, the host answered for it: a 421 then refuses the message, as any 4xx to it (below).
    expect(outcomeFromError({ code: 'EMESSAGE', command: 'DATA', responseCode: 421, response: '421 4.3.2 Service shutting down' }).hostUnavailable).toBeUndefined();
    // Inside the mail transaction the host did take the session: a 4xx there is the host putting the mail off (below).
    expect(outcomeFromError({ command: 'DATA', responseCode: 451, response: '451 4.3.0 Local error' }).hostUnavailable).toBeUndefined();
  });

  it('marks a 4xx inside the mail transaction as the host putting the mail off, so that the next MX host is tried', () => {
    const putOff = (command: string, responseCode: number, response: string, code = 'EENVELOPE') => outcomeFromError({ code, command, responseCode, response });
    expect(putOff('MAIL FROM', 451, '451 4.3.0 Local error in processing')).toEqual({ kind: 'temporary', code: 451, reply: '451 4.3.0 Local error in processing', hostDeferred: true });
    // Greylisting, as postgrey and others answer it.
    expect(putOff('RCPT TO', 450, '450 4.2.0 Recipient address rejected: Greylisted')).toEqual({
      kind: 'temporary',
      code: 450,
      reply: '450 4.2.0 Recipient address rejected: Greylisted',
      recipientRefused: true,
      hostDeferred: true,
    });
    expect(putOff('RCPT TO', 451, '451 4.7.1 Please try again later')).toMatchObject({ hostDeferred: true });
    // A host short of room itself, not the recipient's mailbox, nor the transaction's recipient limit.
    expect(putOff('RCPT TO', 452, '452 4.3.1 Insufficient system storage')).toMatchObject({ hostDeferred: true });
    expect(putOff('DATA', 451, '451 4.3.0 Try again later')).toMatchObject({ hostDeferred: true });
    expect(putOff('DATA', 451, '451 4.3.0 Local error in processing', 'EMESSAGE')).toMatchObject({ kind: 'temporary', code: 451, hostDeferred: true });
    // A 4xx to the message says the host did not take it, whichever: the next host's copy is the only one.
    expect(putOff('DATA', 421, '421 4.3.2 Service shutting down', 'EMESSAGE')).toMatchObject({ kind: 'temporary', code: 421, hostDeferred: true });
  });

  it('leaves a full mailbox, a recipient limit, a 5xx and the failures that never began the transaction to what they were', () => {
    const hostDeferred = (error: SmtpErrorLike) => outcomeFromError(error).hostDeferred;
    // The mailbox is full at every host of its domain: a backup MX would only queue the mail for it.
    expect(hostDeferred({ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 452, response: '452 4.2.2 Mailbox full' })).toBeUndefined();
    expect(hostDeferred({ code: 'EMESSAGE', command: 'DATA', responseCode: 451, response: '451 4.2.2 Mailbox full' })).toBeUndefined();
    // Sent again in another transaction to the same host (sendInTransactions).
    expect(hostDeferred({ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 452, response: '452 4.5.3 Too many recipients' })).toBeUndefined();
    expect(hostDeferred({ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 452, response: '452 Too many recipients' })).toBeUndefined();
    expect(hostDeferred({ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 552, response: '552 5.5.3 Too many recipients' })).toBeUndefined();
    expect(hostDeferred({ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550, response: '550 5.1.1 No such user' })).toBeUndefined();
    expect(hostDeferred({ code: 'EMESSAGE', command: 'DATA', responseCode: 554, response: '554 5.7.1 Rejected' })).toBeUndefined();
    // Those already go on as a host that refused the session (a 421 before the message included); a timeout
    // after the message may have been delivered and waits for a retry (smtp-send.ts).
    expect(hostDeferred({ code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 421, response: '421 4.7.0 Too many messages' })).toBeUndefined();
    expect(hostDeferred({ code: 'EPROTOCOL', command: 'EHLO', responseCode: 451, response: '451 try later' })).toBeUndefined();
    expect(hostDeferred({ code: 'ETLS', command: 'STARTTLS', message: 'Error initiating TLS' })).toBeUndefined();
    expect(hostDeferred({ code: 'ETIMEDOUT', command: 'DATA', message: 'Timeout' })).toBeUndefined();
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
    expect(outcomeFromError({ command: 'MAIL FROM', responseCode: 451, response: '451 4.3.0 try later' }).senderRefused).toBeUndefined();
    expect(outcomeFromError({ command: 'DATA', responseCode: 554, response: '554 5.7.1 rejected' }).senderRefused).toBeUndefined();
  });
});
