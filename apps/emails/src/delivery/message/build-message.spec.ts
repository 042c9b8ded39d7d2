import { generateKeyPairSync } from 'node:crypto';
import { authenticate } from 'mailauth';
import { buildMessage, compileMessage, composeMessage } from './build-message';
import { mimeBytes } from './mime-bytes';
import { OutgoingEmail } from './outgoing-email';

const PIXEL = 'R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==';

function email(overrides: Partial<OutgoingEmail> = {}): OutgoingEmail {
  return {
    id: 'email_01TEST',
    mode: 'live',
    fromAddress: 'Acme <hi@acme.test>',
    fromEmail: 'hi@acme.test',
    fromDomain: 'acme.test',
    to: ['Bob <bob@example.test>'],
    cc: ['carol@example.test'],
    bcc: ['secret@example.test'],
    replyTo: ['support@acme.test'],
    subject: 'Your receipt',
    html: '<p>Hello <img src="cid:logo"></p>',
    text: 'Hello',
    headers: { 'X-Campaign': 'spring' },
    attachments: [
      { filename: 'receipt.txt', content: Buffer.from('paid').toString('base64'), contentType: 'text/plain' },
      { filename: 'logo.gif', content: PIXEL, contentType: 'image/gif', contentId: 'logo' },
    ],
    tags: [],
    messageId: '<email_01TEST@acme.test>',
    originatedAt: new Date('2030-01-02T03:04:05Z'),
    ...overrides,
  };
}

/** A header value as a mail client shows it: every RFC 2047 encoded word decoded, the space between two adjacent ones dropped. */
function decodedWords(value: string): string {
  const word = /=\?[^?\s]+\?([BQ])\?([^?\s]*)\?=/gi;
  return value.replace(new RegExp(`(${word.source})\\s+(?=${word.source})`, 'gi'), '$1').replace(word, (_, kind: string, text: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (__, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'),
  );
}

describe(buildMessage.name, () => {
  it('composes the alternative bodies, the attachment, the inline image and the fixed headers', async () => {
    const raw = composeMessage(email()).toString();
    expect(raw).toMatch(/^Message-ID: <email_01TEST@acme\.test>\r$/m);
    expect(raw).toMatch(/^Date: Wed, 02 Jan 2030 03:04:05 \+0000\r$/m);
    expect(raw).toMatch(/^From: Acme <hi@acme\.test>\r$/m);
    expect(raw).toMatch(/^Cc: carol@example\.test\r$/m);
    expect(raw).toMatch(/^Reply-To: support@acme\.test\r$/m);
    expect(raw).toMatch(/^X-Campaign: spring\r$/m);
    expect(raw).not.toContain('secret@example.test');
    expect(raw).toContain('multipart/alternative');
    expect(raw).toContain('multipart/related');
    expect(raw).toMatch(/Content-Id: <logo>/i);
    expect(raw).toMatch(/filename=receipt\.txt/);
  });

  it('signs with d= the from domain so DKIM and DMARC alignment verify', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const p = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const raw = await buildMessage(email(), {
      domainName: 'acme.test',
      keySelector: 'mr1',
      privateKey,
    });
    const records: Record<string, string[][]> = {
      'mr1._domainkey.acme.test': [[`v=DKIM1; k=rsa; p=${p}`]],
      '_dmarc.acme.test': [['v=DMARC1; p=reject']],
    };
    const resolver = async (name: string, type: string) => {
      const found = type === 'TXT' ? records[name] : undefined;
      if (!found) throw Object.assign(new Error(`no ${type} at ${name}`), { code: 'ENOTFOUND' });
      return found;
    };
    const result = await authenticate(raw, { ip: '127.0.0.1', helo: 'mx.test', sender: 'bounces@acme.test', mta: 'mx.test', resolver, disableArc: true });
    const signature = result.dkim.results[0];
    expect(signature.status.result).toBe('pass');
    expect(signature.signingDomain).toBe('acme.test');
    const signed = /DKIM-Signature:[^]*?[;\s]h=([^;]+);/i.exec(raw.toString())![1].replace(/\s+/g, '').toLowerCase().split(':');
    expect(signed).toEqual(expect.arrayContaining(['from', 'to', 'subject', 'date', 'message-id', 'mime-version', 'content-type', 'reply-to', 'cc']));
    expect(raw.toString()).toMatch(/c=relaxed\/relaxed/);
    expect(raw.toString()).toMatch(/a=rsa-sha256/);
  });
});

describe(mimeBytes.name, () => {
  const BARE_CR_OR_LF = /\r(?!\n)|(?<!\r)\n/;
  // Past the encoders' 64 KiB slice, so a body is encoded in more than one slice.
  const LARGE = 70 * 1024;
  const cases: Array<[string, Partial<OutgoingEmail>]> = [
    ['both bodies, an attachment and an inline image', {}],
    ['bodies with bare line feeds and carriage returns', { text: 'one\ntwo\rthree\r\n', html: '<p>one</p>\n<p>two</p>' }],
    ['non-ASCII and long lines (quoted-printable)', { text: `Grüße ${'long '.repeat(40)}\nend`, html: `<p>${'x'.repeat(300)}</p>` }],
    ['mostly non-ASCII text (base64)', { text: 'Привет, мир! '.repeat(30), html: '<p>日本語のテキスト</p>'.repeat(20) }],
    ['trailing whitespace on lines and at the end', { text: 'tab\t\r\nspace \r\nend  ', html: '<p>x</p> \r\n' }],
    ['one text body and nothing else', { html: null, text: 'only text', attachments: [] }],
    ['an internationalized address, left as UTF-8 in the header', { to: ['Jörg <jörg@exämple.test>'], cc: [] }],
    ['one html body and nothing else', { html: '<p>only html</p>', text: null, attachments: [] }],
    [
      'large bodies and a large binary attachment',
      {
        text: `${'é'.repeat(LARGE)} \r\n${'a '.repeat(LARGE)}`,
        html: `<p>${'word '.repeat(LARGE / 2)}</p>`,
        attachments: [{ filename: 'data.bin', content: Buffer.from(Array.from({ length: LARGE + 1 }, (_, index) => (index * 7) % 256)).toString('base64') }],
      },
    ],
    [
      'a text attachment with bare line breaks and non-ASCII (quoted-printable, binary)',
      { attachments: [{ filename: 'notes.csv', content: Buffer.from('a;b\nc;d\rç;é\r\n').toString('base64'), contentType: 'application/csv' }] },
    ],
  ];

  it.each(cases)('%s: the bytes nodemailer build() gives with CRLF newlines, with no bare CR or LF', async (_name, overrides) => {
    const node = compileMessage(email(overrides));
    const written = mimeBytes(node);
    // The same tree through nodemailer's own path: its newline stream, then its final-newline stream.
    (node as unknown as { newline: string }).newline = 'win';
    const built = await node.build();
    expect(written.toString('latin1')).toBe(built.toString('latin1'));
    expect(written.toString('latin1')).not.toMatch(BARE_CR_OR_LF);
    expect(written.subarray(-2).toString()).toBe('\r\n');
  });

  it('keeps every line within 998 characters when a subject or header value is one unbroken run of 998', () => {
    const subject = 'v'.repeat(998);
    const raw = composeMessage(email({ subject, headers: { 'X-Run': 'w'.repeat(998), 'X-Words': 'word '.repeat(190).trim() } })).toString();
    expect(Math.max(...raw.split('\r\n').map((line) => line.length))).toBeLessThanOrEqual(998);
    const unfolded = (name: string) => new RegExp(`^${name}: ((?:.*\r\n[ \t].*)*.*)`, 'm').exec(raw)![1].replace(/\r\n[ \t]/g, ' ');
    // Encoded words of plain letters decode to the letters themselves.
    expect(unfolded('Subject').replace(/=\?UTF-8\?Q\?|\?=|\s/g, '')).toBe(subject);
    expect(unfolded('X-Run').replace(/=\?UTF-8\?Q\?|\?=|\s/g, '')).toBe('w'.repeat(998));
    // Values that fold at spaces are written as they are.
    expect(unfolded('X-Words')).toBe('word '.repeat(190).trim());
  });

  it('sends a subject holding text shaped like an RFC 2047 encoded word so that the reader sees it as written', () => {
    const subject = 'Decode =?utf-8?Q?Hello?= and =?UTF-8?B?SGk=?= yourself';
    const raw = composeMessage(email({ subject })).toString();
    const unfolded = /^Subject: ((?:.*\r\n[ \t].*)*.*)/m.exec(raw)![1].replace(/\r\n[ \t]/g, ' ');
    expect(decodedWords(unfolded)).toBe(subject);
  });

  it('keeps every line within 998 characters when whitespace comes before a run that fills the rest of the 998', () => {
    // nodemailer folds before a whitespace run, which then starts the next line with the word after it.
    const values = [` ${'v'.repeat(997)}`, `\t${'v'.repeat(997)}`, `   ${'v'.repeat(995)}`];
    const tooLong = values.flatMap((value) => {
      const raw = composeMessage(email({ subject: value, headers: { 'X-Run': value } })).toString();
      return raw.split('\r\n').filter((line) => line.length > 998).map((line) => `${JSON.stringify(value.slice(0, 4))}: a line of ${line.length}`);
    });
    expect(tooLong).toEqual([]);
  });

  it('refuses a part whose content would have to be streamed', () => {
    const node = compileMessage(email({ attachments: [] }));
    const textPart = node.childNodes[0];
    textPart.setContent({ path: '/etc/hostname' });
    expect(() => mimeBytes(node)).toThrow(/not a string or a Buffer/);
  });
});
