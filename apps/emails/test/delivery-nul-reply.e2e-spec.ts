import { createServer, Server } from 'node:net';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

/**
 * A receiving server's reply is kept (smtp_reply, the event's smtp.reply, a
 * bounce's suppression details). A NUL character in it made Postgres refuse
 * the whole record (22P05), which is no database outage: the attempt was
 * never recorded, the lease ran out, and the message went out again, for ever.
 */
describe('an SMTP reply holding a NUL character', () => {
  let harness: DeliveryHarness;
  let raw: Server | undefined;
  let messages = 0;
  const sockets = new Set<import('node:net').Socket>();

  beforeAll(async () => {
    harness = await startDeliveryHarness({ DELIVERY_LEASE_MS: '2000' });
    routeMailTo(harness.dns, 'example.test');
    await verifiedDomain(harness, 'acme.test');
    // A minimal MX on the test SMTP server's port whose DATA reply carries a NUL byte (smtp-server would not send one).
    const port = harness.smtp.port;
    await harness.smtp.stop();
    raw = createServer((socket) => {
      sockets.add(socket);
      socket.write('220 mx.example.test ESMTP\r\n');
      let inData = false;
      let buffer = '';
      socket.on('data', (chunk) => {
        buffer += chunk.toString('latin1');
        for (;;) {
          if (inData) {
            const end = buffer.indexOf('\r\n.\r\n');
            if (end < 0) return;
            buffer = buffer.slice(end + 5);
            inData = false;
            messages += 1;
            socket.write('250 2.0.0 queued as \u0000ABC\r\n');
            continue;
          }
          const eol = buffer.indexOf('\r\n');
          if (eol < 0) return;
          const line = buffer.slice(0, eol);
          buffer = buffer.slice(eol + 2);
          if (/^(EHLO|HELO)/i.test(line)) socket.write('250-mx.example.test\r\n250 PIPELINING\r\n');
          else if (/^DATA/i.test(line)) {
            socket.write('354 go on\r\n');
            inData = true;
          } else if (/^QUIT/i.test(line)) socket.end('221 bye\r\n');
          else socket.write('250 2.1.0 ok\r\n');
        }
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => raw!.listen(port, '127.0.0.1', () => resolve()));
  }, 120000);
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => raw?.close(resolve));
    await harness?.stop();
  });

  it('records the outcome once and does not send the message again and again', async () => {
    const { stack, db } = harness;
    const sent = await stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'nul@example.test', subject: 'NUL', text: 'x' });
    expect(sent.status).toBe(202);
    const email = await emailReaching(stack, stack.rootKey, sent.body.id, ['delivered'], 20000);
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', smtpCode: 250, smtpReply: '250 2.0.0 queued as \uFFFDABC' });
    // Recorded once, so nothing claims it again.
    const { rows } = await db.query('SELECT attempts, lease_owner FROM emails.emails WHERE id = $1', [sent.body.id]);
    expect(rows[0]).toEqual({ attempts: 1, lease_owner: null });
    expect(messages).toBe(1);
  }, 60000);
});
