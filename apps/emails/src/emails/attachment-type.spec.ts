import { assertAttachmentTypeFits, fitsTheWireUnencoded } from './attachment-type';

const base64 = (text: string) => Buffer.from(text, 'latin1').toString('base64');

describe(fitsTheWireUnencoded.name, () => {
  it.each([
    ['CRLF lines of 998 octets', `${'x'.repeat(998)}\r\n${'y'.repeat(998)}`, true],
    ['an empty message', '', true],
    ['a line of 999 octets', `ok\r\n${'x'.repeat(999)}\r\n`, false],
    ['a bare LF', 'a\nb', false],
    ['a bare CR', 'a\rb', false],
    ['a CR at the very end', 'a\r', false],
    ['an 8-bit byte', 'caf\xe9', false],
    ['a NUL', 'a\x00b', false],
  ])('%s', (_name, text, fits) => {
    expect(fitsTheWireUnencoded(Buffer.from(text, 'latin1'))).toBe(fits);
  });

  it('checks 10 MB without running out of stack', () => {
    const big = Buffer.from(`${'x'.repeat(997)}\r\n`.repeat(10_500), 'latin1');
    expect(fitsTheWireUnencoded(big)).toBe(true);
    expect(fitsTheWireUnencoded(Buffer.concat([big, Buffer.from('\n')]))).toBe(false);
  });
});

describe(assertAttachmentTypeFits.name, () => {
  it('refuses a multipart type, in any case, naming contentType', () => {
    expect(() => assertAttachmentTypeFits({ content: base64('x'), contentType: 'MULTIPART/related' }, 'attachments[2]')).toThrow(/^attachments\[2\]\.contentType: must not be multipart/);
  });

  it('takes a message/rfc822 that can go on the wire unencoded, and refuses one that cannot, naming content', () => {
    expect(() => assertAttachmentTypeFits({ content: base64('Subject: hi\r\n\r\nhello\r\n'), contentType: 'message/rfc822' }, 'a')).not.toThrow();
    expect(() => assertAttachmentTypeFits({ content: base64('Subject: hi\n\nhello\n'), contentType: 'message/rfc822' }, 'a')).toThrow(/^a\.content: a message\/rfc822 attachment is sent unencoded/);
  });

  it('leaves every other type to the base64 nodemailer gives it', () => {
    for (const contentType of [undefined, 'application/octet-stream', 'text/plain', 'image/png']) {
      expect(() => assertAttachmentTypeFits({ content: base64('caf\xe9\n'.repeat(10)), contentType }, 'a')).not.toThrow();
    }
  });
});
