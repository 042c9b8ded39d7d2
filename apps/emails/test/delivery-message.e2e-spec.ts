import { authenticate } from 'mailauth';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, testDnsResolver, verifiedDomain } from './support/delivery-harness';

const PIXEL = 'R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==';

/** The header block of a message: its fields, each unfolded, as [lower-case name, value]. */
function headerFields(raw: Buffer): Array<[string, string]> {
  const header = raw.toString('latin1').split('\r\n\r\n')[0];
  return header
    .replace(/\r\n[ \t]/g, ' ')
    .split('\r\n')
    .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]);
}

/** The decoded body of the first MIME part of `type` (base64 or quoted-printable). */
function partBody(raw: Buffer, type: string): string {
  const text = raw.toString('latin1');
  const start = text.indexOf(`Content-Type: ${type}`);
  const headerEnd = text.indexOf('\r\n\r\n', start);
  const body = text.slice(headerEnd + 4, text.indexOf('\r\n--', headerEnd));
  const encoding = /Content-Transfer-Encoding: (\S+)/.exec(text.slice(start, headerEnd))?.[1];
  if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    return Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
  }
  return Buffer.from(body, 'latin1').toString('utf8');
}

/** The names a DKIM-Signature field signs (its h= tag), in order, lower-case. */
function signedNames(raw: Buffer): string[] {
  const [, value] = headerFields(raw).find(([name]) => name === 'dkim-signature')!;
  return /(?:^|;)\s*h=([^;]+)/.exec(value)![1].replace(/\s+/g, '').toLowerCase().split(':');
}

/**
 * What a receiver gets, byte for byte: the message Mailroom composes and signs
 * for awkward input (non-ASCII names and subject, a long subject, long lines,
 * 8-bit bodies, a lone dot, odd filenames, an inline image, tracking), checked
 * with mailauth as a receiving MTA would.
 */
describe('the message a receiver gets', () => {
  let harness: DeliveryHarness;

  beforeAll(async () => {
    harness = await startDeliveryHarness({ TRACKING_BASE_URL: 'https://track.mailroom.test' });
    for (const domain of ['example.test', 'xn--bcher-kva.test']) routeMailTo(harness.dns, domain);
    await verifiedDomain(harness, 'acme.test');
  });
  afterAll(() => harness?.stop());
  beforeEach(() => harness.smtp.clear());

  const deliver = async (body: Record<string, unknown>) => {
    const response = await harness.stack.api.post('/v1/emails', Object.assign({ from: 'Acme <hi@acme.test>', subject: 'Hello', text: 'Hi there' }, body));
    expect(response.status).toBe(202);
    await emailReaching(harness.stack, harness.stack.rootKey, response.body.id, ['delivered']);
    const [message] = harness.smtp.messagesFor(typeof body.to === 'string' ? body.to.replace(/^.*<|>$/g, '').toLowerCase() : '');
    return { id: response.body.id as string, message };
  };
  const verdict = (raw: Buffer, sender = 'bounces@acme.test') =>
    authenticate(raw, { ip: '127.0.0.1', helo: 'mailroom.test', sender, mta: 'mx.example.test', resolver: testDnsResolver(harness.dns) });

  it('passes DKIM, SPF and DMARC, in 7-bit lines of at most 998 octets, with every header once and no Bcc', async () => {
    const { id, message } = await deliver({
      from: 'Jörg Müller, Acme <hi@acme.test>',
      to: 'Zoë <zoe@example.test>',
      cc: ['Ann <ann@bücher.test>'],
      bcc: ['hidden@example.test'],
      replyTo: 'Støtte <support@acme.test>',
      subject: `Grüße: ${'ein langer Betreff '.repeat(20)}Ende`,
      text: `${'x'.repeat(2000)}\n.\n.leading dot\nno final newline`,
      html: `<p>Größe ${'é'.repeat(1500)}</p><p><a href="https://acme.test/offer">Offer</a> <img src="cid:logo"></p>`,
      headers: { 'x-odd-CASE': '  spaced   out  ', 'X-Campaign': 'spring' },
      attachments: [
        { filename: 'Rechnung "März" (1).pdf', content: Buffer.from('%PDF-1.4').toString('base64'), contentType: 'application/pdf' },
        { filename: 'logo.gif', content: PIXEL, contentType: 'image/gif', contentId: 'logo' },
      ],
    });
    expect(message.mailFrom).toBe('bounces@acme.test');
    expect(message.rcptTo.sort()).toEqual(['hidden@example.test', 'zoe@example.test']);

    const result = await verdict(message.raw, message.mailFrom);
    expect(result.dkim.results).toHaveLength(1);
    expect(result.dkim.results[0]).toMatchObject({ signingDomain: 'acme.test', status: { result: 'pass' } });
    expect((result.spf as any).status.result).toBe('pass');
    expect((result.dmarc as any).status.result).toBe('pass');

    const bytes = message.raw;
    expect(bytes.every((byte) => byte < 0x80)).toBe(true);
    const lines = bytes.toString('latin1').split('\r\n');
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(998);
    expect(bytes.toString('latin1')).not.toMatch(/\r(?!\n)|(?<!\r)\n/);
    expect(bytes.toString('latin1')).not.toContain('hidden@example.test');

    const fields = headerFields(bytes);
    const count = (name: string) => fields.filter(([field]) => field === name).length;
    for (const name of ['from', 'to', 'cc', 'reply-to', 'subject', 'date', 'message-id', 'mime-version', 'content-type', 'dkim-signature']) expect([name, count(name)]).toEqual([name, 1]);
    expect(count('bcc')).toBe(0);
    const value = (name: string) => fields.find(([field]) => field === name)![1];
    expect(value('message-id')).toBe(`<${id}@acme.test>`);
    expect(value('date')).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} \+0000$/);
    expect(value('cc')).toBe('Ann <ann@xn--bcher-kva.test>');
    expect(value('x-odd-case')).toBe('spaced   out');
    expect(value('content-type')).toMatch(/^multipart\/mixed;/);
    // The text part comes before the html in the alternative, so a reader prefers the html.
    const body = bytes.toString('latin1');
    expect(body.indexOf('Content-Type: text/plain')).toBeLessThan(body.indexOf('Content-Type: text/html'));
    expect(body).toMatch(/Content-ID: <logo>/);
    expect(body).toContain("filename*0*=utf-8''Rechnung%20%22M%C3%A4rz%22%20%281%29.pdf");
    // Tracking rewrote the html before it was signed.
    const html = partBody(bytes, 'text/html');
    expect(html).toMatch(/^<p>Größe é{1500}<\/p><p><a href="https:\/\/track\.mailroom\.test\/t\/c\/[^"]+">Offer<\/a> <img src="cid:logo"><\/p><img src="https:\/\/track\.mailroom\.test\/t\/o\//);
    expect(partBody(bytes, 'text/plain')).toBe(`${'x'.repeat(2000)}\r\n.\r\n.leading dot\r\nno final newline`);
  });

  it('sends a retry that is the first attempt byte for byte: boundaries, tracked links and signature', async () => {
    const held = harness.smtp.holdNextData();
    const response = await harness.stack.api.post('/v1/emails', {
      from: 'Acme <hi@acme.test>',
      to: 'again@example.test',
      subject: 'Your receipt',
      text: 'Paid in full',
      html: '<p>Receipt <a href="https://acme.test/order">order</a> <img src="cid:logo"></p>',
      tracking: { opens: true, clicks: true },
      attachments: [
        { filename: 'receipt.txt', content: Buffer.from('paid in full').toString('base64'), contentType: 'text/plain' },
        { filename: 'logo.gif', content: PIXEL, contentType: 'image/gif', contentId: 'logo' },
      ],
    });
    expect(response.status).toBe(202);
    const first = await held.arrived;
    held.release({ code: 451, message: '4.3.0 Try again later' });
    const email = await emailReaching(harness.stack, harness.stack.rootKey, response.body.id, ['delivered']);
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 2 });
    const [retry] = harness.smtp.messagesFor('again@example.test');
    expect(retry.raw.toString('latin1')).toContain('Content-Type: multipart/mixed');
    expect(partBody(retry.raw, 'text/html')).toMatch(/href="https:\/\/track\.mailroom\.test\/t\/c\/[^]*src="https:\/\/track\.mailroom\.test\/t\/o\//);
    expect(retry.raw.toString('latin1')).toBe(first.raw.toString('latin1'));
    expect((await verdict(retry.raw)).dkim.results[0].status.result).toBe('pass');
  });

  it('carries a forwarded message/rfc822 attachment unencoded and byte for byte, with the signature passing', async () => {
    const forwarded = 'From: Ann <ann@example.test>\r\nSubject: Original\r\n\r\nThe original body.\r\n.\r\n';
    const { message } = await deliver({
      to: 'forwarded@example.test',
      attachments: [{ filename: 'original.eml', content: Buffer.from(forwarded).toString('base64'), contentType: 'message/rfc822' }],
    });
    const raw = message.raw.toString('latin1');
    expect(raw).toMatch(/Content-Type: message\/rfc822; name=original\.eml\r\nContent-Transfer-Encoding: 7bit\r\n/);
    expect(raw).toContain(`\r\n\r\n${forwarded}`);
    expect((await verdict(message.raw)).dkim.results[0].status.result).toBe('pass');
  });

  it('sends a file named .eml without a contentType, whose content could not go out unencoded, base64-encoded and intact', async () => {
    // Without a contentType the type follows the extension: .eml is message/rfc822, which goes out unencoded.
    const saved = 'Subject: Grüße\n\nA body saved with Unix line ends.\n.\n' + `${'x'.repeat(1200)}\n`;
    const { message } = await deliver({ to: 'saved@example.test', attachments: [{ filename: 'saved.eml', content: Buffer.from(saved).toString('base64') }] });
    const raw = message.raw.toString('latin1');
    expect(raw).not.toMatch(/\r(?!\n)|(?<!\r)\n/);
    expect(message.raw.every((byte) => byte < 0x80)).toBe(true);
    expect(Math.max(...raw.split('\r\n').map((line) => line.length))).toBeLessThanOrEqual(998);
    expect(raw).toMatch(/Content-Type: application\/octet-stream; name=saved\.eml\r\nContent-Transfer-Encoding: base64\r\n/);
    expect(partBody(message.raw, 'application/octet-stream')).toBe(saved);
    expect((await verdict(message.raw)).dkim.results[0].status.result).toBe('pass');
  });

  it('oversigns the fields it signs, so a From, Subject or Reply-To added in transit breaks the signature', async () => {
    const { message } = await deliver({ to: 'oversigned@example.test', subject: 'Your receipt', replyTo: 'support@acme.test' });
    const names = signedNames(message.raw);
    for (const name of ['from', 'to', 'subject', 'date', 'message-id', 'mime-version', 'content-type', 'reply-to']) {
      // Listed once more than the message holds it: the extra entry signs "no further such field".
      expect([name, names.filter((signed) => signed === name).length]).toEqual([name, 2]);
    }
    // Cc is absent, and signed as absent.
    expect(names.filter((signed) => signed === 'cc')).toEqual(['cc']);
    expect((await verdict(message.raw)).dkim.results[0].status.result).toBe('pass');

    // A receiver shows the first From; one put above Mailroom's must not keep a passing signature.
    for (const added of ['From: Bank <security@acme.test>', 'Subject: Urgent: verify your account', 'Reply-To: thief@evil.test', 'Cc: someone@evil.test']) {
      const tampered = Buffer.concat([Buffer.from(`${added}\r\n`), message.raw]);
      const result = await verdict(tampered);
      expect([added, result.dkim.results[0].status.result]).toEqual([added, 'fail']);
    }
  });
});
