import { createTransport } from 'nodemailer';
import { startTestSmtp, TestSmtp } from './test-smtp';

describe(startTestSmtp.name, () => {
  let smtp: TestSmtp;
  beforeEach(async () => {
    smtp = await startTestSmtp();
  });
  afterEach(() => smtp.close());

  const send = (to: string[], port = smtp.port) =>
    createTransport({ host: '127.0.0.1', port, secure: false, tls: { rejectUnauthorized: false }, name: 'client.test', connectionTimeout: 2000 }).sendMail({
      envelope: { from: 'bounces@sender.test', to },
      raw: 'From: a@sender.test\r\nTo: b@example.test\r\nSubject: hi\r\n\r\nhello\r\n',
    });

  it('collects the envelope and the raw bytes, over STARTTLS', async () => {
    await send(['B@example.test', 'c@example.test']);
    expect(smtp.messages).toHaveLength(1);
    const [message] = smtp.messages;
    expect(message).toMatchObject({ mailFrom: 'bounces@sender.test', rcptTo: ['B@example.test', 'c@example.test'], helo: 'client.test', secure: true });
    expect(message.raw.toString()).toContain('Subject: hi\r\n\r\nhello');
    expect(smtp.messagesFor('C@example.test')).toHaveLength(1);
    expect(smtp.connectionCount).toBe(1);
  });

  it('answers the scripted DATA failure once, then accepts', async () => {
    smtp.failNext(451, '4.2.2 Mailbox full');
    await expect(send(['b@example.test'])).rejects.toMatchObject({ responseCode: 451, response: '451 4.2.2 Mailbox full' });
    expect(smtp.messages).toHaveLength(0);
    await send(['b@example.test']);
    expect(smtp.messages).toHaveLength(1);
  });

  it('rejects a scripted recipient and accepts the others', async () => {
    smtp.rejectRecipient('gone@example.test', 550, '5.1.1 No such user');
    const info = await send(['gone@example.test', 'here@example.test']);
    expect(info.rejected).toEqual(['gone@example.test']);
    expect(info.rejectedErrors?.[0]).toMatchObject({ responseCode: 550 });
    expect(smtp.messages[0].rcptTo).toEqual(['here@example.test']);
  });

  it('holds a DATA reply until released', async () => {
    const held = smtp.holdNextData();
    const sending = send(['b@example.test']);
    const arrived = await held.arrived;
    expect(arrived.rcptTo).toEqual(['b@example.test']);
    expect(smtp.messages).toHaveLength(0);
    held.release();
    await sending;
    expect(smtp.messages).toHaveLength(1);
  });

  it('goes down and comes back on the same port', async () => {
    const port = smtp.port;
    await smtp.stop();
    await expect(send(['b@example.test'], port)).rejects.toMatchObject({ code: 'ESOCKET' });
    await smtp.start();
    expect(smtp.port).toBe(port);
    await send(['b@example.test'], port);
    expect(smtp.messages).toHaveLength(1);
  });
});
