import { RawSmtp, RawSmtpScript, startRawSmtp } from '@mailroom/testing';
import { DeliveryHarness, emailReaching, eventsOf, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

/**
 * Which MX host gets the mail, against plain SMTP servers on loopback addresses (they share SMTP_MX_PORT): each
 * recipient domain's hosts in its own order of preference (RFC 5321 §5.1), and the next host when the preferred
 * one ends the session before any of the message went out.
 */
describe('delivery to the MX hosts of a domain, in its order', () => {
  let harness: DeliveryHarness;
  const servers: RawSmtp[] = [];

  beforeAll(async () => {
    harness = await startDeliveryHarness();
    await verifiedDomain(harness, 'acme.test');
  }, 120000);
  afterAll(async () => {
    for (const server of servers) await server.close();
    await harness?.stop();
  });

  const send = async (to: string[]) => {
    const response = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to, subject: 'Hello', text: 'Hi there' });
    expect(response.status).toBe(202);
    return response.body.id as string;
  };
  /** `domain`'s MX records, in order of preference: first.<domain> at the first address (preference 10), second.<domain> at the next (20), and so on. */
  const mxHostsInOrder = (domain: string, ...addresses: string[]) => {
    const names = ['first', 'second', 'third'].slice(0, addresses.length).map((name) => `${name}.${domain}`);
    harness.dns.set(domain, 'MX', names.map((exchange, index) => ({ exchange, priority: 10 * (index + 1) })));
    names.forEach((name, index) => harness.dns.set(name, 'A', addresses[index]));
  };
  /** `domain`'s MX records: first.<domain> at `preferred` (preference 10), then second.<domain> at `backup` (20). */
  const preferredThenBackup = (domain: string, preferred: string, backup: string) => mxHostsInOrder(domain, preferred, backup);
  /** A server that answers as `script` says (every message taken by default), and the addresses it was given in RCPT TO. */
  const plainServer = async (address: string, script: RawSmtpScript = () => false) => {
    const rcptTo: string[] = [];
    const server = await startRawSmtp(
      harness.smtp.port,
      (step, socket, line) => {
        if (step === 'RCPT') rcptTo.push(/<(.*)>/.exec(line)![1]);
        return script(step, socket, line);
      },
      address,
    );
    servers.push(server);
    return { server, rcptTo };
  };
  /** `domain`'s preferred MX host, answering as `script` says, and its backup, which takes every message. */
  const preferredAnsweringThenBackup = async (domain: string, preferredAddress: string, backupAddress: string, script: RawSmtpScript) => {
    const preferred = await plainServer(preferredAddress, script);
    const backup = await plainServer(backupAddress);
    preferredThenBackup(domain, preferredAddress, backupAddress);
    return { preferred, backup };
  };
  /** A script that answers `step` with `reply` and leaves every other step to the plain answer. */
  const answering = (step: string, reply: string): RawSmtpScript => (current, socket) => current === step && (socket.write(`${reply}\r\n`), true);
  /**
   * A script that refuses every RCPT TO with `reply`, and the DATA command nodemailer pipelines after them as Postfix
   * does when no recipient was accepted (the plain 354 would leave the client waiting for a reply to its next command).
   */
  const refusingRecipients =
    (reply: string): RawSmtpScript =>
    (step, socket, line) =>
      answering('RCPT', reply)(step, socket, line) || answering('DATA', '554 5.5.1 Error: no valid recipients')(step, socket, line);

  it("sends each domain's recipients to that domain's preferred host when two domains share their hosts in opposite orders", async () => {
    const x = await plainServer('127.0.0.31');
    const y = await plainServer('127.0.0.32');
    harness.dns.set('x.shared.test', 'A', '127.0.0.31');
    harness.dns.set('y.shared.test', 'A', '127.0.0.32');
    harness.dns.set('one.test', 'MX', [
      { exchange: 'x.shared.test', priority: 10 },
      { exchange: 'y.shared.test', priority: 20 },
    ]);
    harness.dns.set('two.test', 'MX', [
      { exchange: 'y.shared.test', priority: 10 },
      { exchange: 'x.shared.test', priority: 20 },
    ]);

    const id = await send(['ann@one.test', 'bob@two.test']);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    expect(email.recipients.map((recipient: any) => [recipient.address, recipient.status, recipient.attempts])).toEqual([
      ['ann@one.test', 'delivered', 1],
      ['bob@two.test', 'delivered', 1],
    ]);
    // Both hosts are up, so neither domain's mail may go to its backup.
    expect(x.rcptTo).toEqual(['ann@one.test']);
    expect(y.rcptTo).toEqual(['bob@two.test']);
  });

  it('tries the next MX host when the preferred one ends the session with a 421 to the DATA command, before any of the message', async () => {
    const closing = await startRawSmtp(harness.smtp.port, (step, socket) => step === 'DATA' && (socket.end('421 4.3.2 Service shutting down\r\n'), true), '127.0.0.33');
    servers.push(closing);
    const backup = await plainServer('127.0.0.34');
    preferredThenBackup('closing.test', '127.0.0.33', '127.0.0.34');

    const id = await send(['ann@closing.test']);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    // Delivered by the backup in the first attempt, as when the connection is lost at that point, not after a wait.
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 1, smtpCode: 250 });
    expect((await eventsOf(harness.db, id)).map((event) => event.type)).toEqual(['email.queued', 'email.delivered']);
    expect(closing.connectionCount).toBeGreaterThanOrEqual(1);
    expect(closing.messages).toHaveLength(0);
    expect(backup.rcptTo).toEqual(['ann@closing.test']);
  });

  it('keeps the refusals a host gave at RCPT TO when it then ends the session, and hands the recipients it accepted on to the next MX host', async () => {
    // The 421 and the close arrive together, so the client may see the connection close before it reads the reply.
    const closing = await startRawSmtp(
      harness.smtp.port,
      (step, socket, line) => {
        if (step === 'RCPT' && line.includes('gone@')) return socket.write('550 5.1.1 No such user\r\n'), true;
        return step === 'DATA' && (socket.end('421 4.7.0 Too many errors on this connection\r\n'), true);
      },
      '127.0.0.35',
    );
    servers.push(closing);
    const backup = await plainServer('127.0.0.36');
    preferredThenBackup('partly.test', '127.0.0.35', '127.0.0.36');

    const id = await send(['ann@partly.test', 'gone@partly.test']);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    expect(email.recipients.map((recipient: any) => [recipient.address, recipient.status, recipient.attempts, recipient.smtpCode])).toEqual([
      ['ann@partly.test', 'delivered', 1, 250],
      ['gone@partly.test', 'bounced', 1, 550],
    ]);
    // The backup MX, which may take any address of the domain, is never asked about the one the first host refused.
    expect(backup.rcptTo).toEqual(['ann@partly.test']);
    expect(closing.messages).toHaveLength(0);
    const bounced = (await eventsOf(harness.db, id)).find((event) => event.type === 'email.bounced');
    expect(bounced?.data).toMatchObject({ recipient: 'gone@partly.test', suppressed: true });
  });

  // As Postfix (smtp_trouble.c) and Exim do: a soft error from a server that is not the last one keeps the recipient
  // for the next MX host. Waiting for the retry schedule instead kept the mail a minute or more (hours, further on)
  // from a backup MX that would take it now, and asked the same greylisting host first every time.
  it('tries the next MX host when the preferred one greylists the recipient with a 451 at RCPT TO, and delivers in the first attempt', async () => {
    const { preferred: greylisting, backup } = await preferredAnsweringThenBackup('greylisting.test', '127.0.0.37', '127.0.0.38', refusingRecipients('451 4.7.1 Greylisted, try again later'));

    const id = await send(['ann@greylisting.test']);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 1, smtpCode: 250 });
    expect((await eventsOf(harness.db, id)).map((event) => event.type)).toEqual(['email.queued', 'email.delivered']);
    expect(greylisting.rcptTo).toEqual(['ann@greylisting.test']);
    expect(greylisting.server.messages).toHaveLength(0);
    expect(backup.rcptTo).toEqual(['ann@greylisting.test']);
    expect(backup.server.messages).toHaveLength(1);
  });

  it('tries the next MX host when the preferred one answers the message with a 451 after its final dot', async () => {
    const { preferred: failing, backup } = await preferredAnsweringThenBackup('local-error.test', '127.0.0.39', '127.0.0.40', answering('message', '451 4.3.0 Local error in processing'));

    const id = await send(['ann@local-error.test', 'bob@local-error.test']);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    expect(email.recipients.map((recipient: any) => [recipient.address, recipient.status, recipient.attempts, recipient.smtpCode])).toEqual([
      ['ann@local-error.test', 'delivered', 1, 250],
      ['bob@local-error.test', 'delivered', 1, 250],
    ]);
    // The first host read the whole message and refused it: the backup's copy is the only one delivered.
    expect(failing.server.messages).toHaveLength(1);
    expect(backup.rcptTo).toEqual(['ann@local-error.test', 'bob@local-error.test']);
    expect(backup.server.messages).toHaveLength(1);
  });

  it('bounces a recipient the preferred host refuses with a 550 at RCPT TO, without asking the backup MX', async () => {
    const { preferred: refusing, backup } = await preferredAnsweringThenBackup('unknown-user.test', '127.0.0.41', '127.0.0.42', refusingRecipients('550 5.1.1 No such user'));

    const id = await send(['gone@unknown-user.test']);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['bounced']);
    expect(email.recipients[0]).toMatchObject({ status: 'bounced', attempts: 1, smtpCode: 550 });
    expect(refusing.rcptTo).toEqual(['gone@unknown-user.test']);
    expect(backup.server.connectionCount).toBe(0);
  });

  it("defers a recipient every host answered 451 with the last reply, and asks two hosts an attempt at most, as Postfix's smtp_mx_session_limit", async () => {
    const first = await plainServer('127.0.0.43', refusingRecipients('451 4.7.1 Greylisted by the first host'));
    const second = await plainServer('127.0.0.44', refusingRecipients('451 4.7.1 Greylisted by the second host'));
    const third = await plainServer('127.0.0.45');
    mxHostsInOrder('all-greylisting.test', '127.0.0.43', '127.0.0.44', '127.0.0.45');

    const id = await send(['ann@all-greylisting.test']);
    // DELIVERY_RETRY_SCHEDULE is 500ms,500ms,500ms here: deferred three times, then failed.
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['failed']);
    expect(email.recipients[0]).toMatchObject({ status: 'failed', attempts: 4, smtpCode: 451, smtpReply: '451 4.7.1 Greylisted by the second host' });
    const events = await eventsOf(harness.db, id);
    const delayed = events.filter((event) => event.type === 'email.delivery_delayed');
    expect(delayed.map((event) => event.data.smtp)).toEqual(Array(3).fill({ code: 451, reply: '451 4.7.1 Greylisted by the second host', host: 'second.all-greylisting.test' }));
    // Each attempt asked the first host, then the second; the third, which would have taken the mail, never.
    expect(first.rcptTo).toEqual(Array(4).fill('ann@all-greylisting.test'));
    expect(second.rcptTo).toEqual(Array(4).fill('ann@all-greylisting.test'));
    expect(third.server.connectionCount).toBe(0);
  });

  it('leaves a host that put the mail off for the next host, instead of asking it again at its other address', async () => {
    const greylistingHere = await plainServer('127.0.0.46', refusingRecipients('451 4.7.1 Greylisted'));
    const greylistingThere = await plainServer('127.0.0.47', refusingRecipients('451 4.7.1 Greylisted'));
    const backup = await plainServer('127.0.0.48');
    // One preferred host with two addresses (as one with an IPv4 and an IPv6 address), then the backup.
    harness.dns.set('two-addresses.test', 'MX', [
      { exchange: 'first.two-addresses.test', priority: 10 },
      { exchange: 'second.two-addresses.test', priority: 20 },
    ]);
    harness.dns.set('first.two-addresses.test', 'A', ['127.0.0.46', '127.0.0.47']);
    harness.dns.set('second.two-addresses.test', 'A', '127.0.0.48');

    const id = await send(['ann@two-addresses.test']);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 1, smtpCode: 250 });
    // The host's greylisting is the host's, whichever of its addresses answers: one of them was asked, once.
    expect([...greylistingHere.rcptTo, ...greylistingThere.rcptTo]).toEqual(['ann@two-addresses.test']);
    expect(backup.server.messages).toHaveLength(1);
  });

  it("keeps the reply of a host that put the mail off when the next host cannot be reached, as the recipient's last reply", async () => {
    const greylisting = await plainServer('127.0.0.49', refusingRecipients('451 4.7.1 Greylisted, come back in 5 minutes'));
    // Nothing listens at the backup's address: its connection is refused.
    mxHostsInOrder('greylisting-then-down.test', '127.0.0.49', '127.0.0.50');

    const id = await send(['ann@greylisting-then-down.test']);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['failed']);
    // "connection refused" says nothing the sender can act on; the greylisting says why the mail waits.
    expect(email.recipients[0]).toMatchObject({ status: 'failed', attempts: 4, smtpCode: 451, smtpReply: '451 4.7.1 Greylisted, come back in 5 minutes' });
    const delayed = (await eventsOf(harness.db, id)).filter((event) => event.type === 'email.delivery_delayed');
    // The reply kept is the first host's, and so is the host named with it, not the unreachable one after it.
    expect(delayed.map((event) => event.data.smtp)).toEqual(Array(3).fill({ code: 451, reply: '451 4.7.1 Greylisted, come back in 5 minutes', host: 'first.greylisting-then-down.test' }));
    expect(greylisting.rcptTo).toEqual(Array(4).fill('ann@greylisting-then-down.test'));
  });
});
