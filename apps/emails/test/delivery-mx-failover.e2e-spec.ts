import { RawSmtp, startRawSmtp } from '@mailroom/testing';
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
  /** `domain`'s MX records: first.<domain> at `preferred` (preference 10), then second.<domain> at `backup` (20). */
  const preferredThenBackup = (domain: string, preferred: string, backup: string) => {
    harness.dns.set(domain, 'MX', [
      { exchange: `first.${domain}`, priority: 10 },
      { exchange: `second.${domain}`, priority: 20 },
    ]);
    harness.dns.set(`first.${domain}`, 'A', preferred);
    harness.dns.set(`second.${domain}`, 'A', backup);
  };
  /** A server that takes every message, and the addresses it was given in RCPT TO. */
  const plainServer = async (address: string) => {
    const rcptTo: string[] = [];
    const server = await startRawSmtp(
      harness.smtp.port,
      (step, _socket, line) => {
        if (step === 'RCPT') rcptTo.push(/<(.*)>/.exec(line)![1]);
        return false;
      },
      address,
    );
    servers.push(server);
    return { server, rcptTo };
  };

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
});
