import { DomainError, MESSAGE_QUOTE_MAX_LENGTH } from '@mailroom/errors';
import { EmailSendInput } from '@mailroom/contracts';
import { parseEmailInput } from './email-input.parser';

function problemOf(extra: Partial<EmailSendInput>): string | null {
  const input = Object.assign({ from: 'a@example.com', to: 'b@example.com', subject: 'Hi', text: 'Hello' }, extra) as EmailSendInput;
  try {
    parseEmailInput(input, '', new Date());
    return null;
  } catch (error) {
    return (error as DomainError).message;
  }
}

describe(parseEmailInput.name, () => {
  it('names a metadata key or header name holding CR/LF JSON-escaped, never raw', () => {
    expect(problemOf({ metadata: { 'a\r\nb': 'x'.repeat(3000) } })).toBe('metadata."a\\r\\nb": must be at most 2048 characters');
    expect(problemOf({ metadata: { '': 'x' } })).toBe('metadata."": keys must be 1 to 256 characters');
    expect(problemOf({ headers: { 'X-A\r\nBcc': 'x' } })).toBe('headers."X-A\\r\\nBcc": is not a valid header name');
    const long = `X\r\n${'a'.repeat(200)}`;
    expect(problemOf({ headers: { [long]: 'x' } })).not.toMatch(/[\r\n]/);
  });

  it('says why a valid address it does not send to is refused: a local part outside ASCII, a quoted one, an IP literal', () => {
    const refusal = (why: string) => new RegExp(`is not an address Mailroom sends to: ${why}`);
    expect(problemOf({ to: 'zoë@example.com' })).toMatch(refusal('its local part \\(before the @\\) is not ASCII, which needs SMTPUTF8'));
    expect(problemOf({ from: 'Zoë <zoë@bücher.example>' })).toMatch(refusal('its local part \\(before the @\\) is not ASCII'));
    expect(problemOf({ to: '"john doe"@example.com' })).toMatch(refusal('its local part is quoted'));
    expect(problemOf({ bcc: 'a@[127.0.0.1]' })).toMatch(refusal('its domain is an IP address literal'));
    // Invalid however written: no reason but that.
    expect(problemOf({ to: 'zoë@b' })).toBe("to: 'zoë@b' is not a valid email address");
    expect(problemOf({ to: '"x"@[1.2.3.4' })).toBe(`to: '"x"@[1.2.3.4' is not a valid email address`);
  });

  it('takes a display name as long as its words fit the lines of the message, and refuses one word longer than a line', () => {
    const refusal = /: the display name holds a word too long for one line of the message/;
    expect(problemOf({ from: `${'A'.repeat(990)} <a@example.com>` })).toBeNull();
    expect(problemOf({ to: [`${'word '.repeat(2000).trim()} <b@example.com>`] })).toBeNull();
    expect(problemOf({ replyTo: `${'é'.repeat(2000)} <b@example.com>` })).toBeNull();
    expect(problemOf({ from: `${'A'.repeat(998)} <a@example.com>` })).toMatch(new RegExp(`^from${refusal.source}`));
    expect(problemOf({ bcc: ['c@example.com', `"${'a,'.repeat(498)}" <b@example.com>`] })).toMatch(new RegExp(`^bcc\\[1\\]${refusal.source}`));
  });

  it('quotes the start of an overlong header name once: in single quotes as written, or JSON-escaped, never both', () => {
    expect(problemOf({ headers: { [`X-${'n'.repeat(200)}`]: 'x' } })).toBe(`headers: header names must be at most 128 characters ('X-${'n'.repeat(22)}…' has 202)`);
    expect(problemOf({ headers: { [`X\r\n${'a'.repeat(200)}`]: 'x' } })).toBe(`headers: header names must be at most 128 characters ("X\\r\\n${'a'.repeat(21)}…" has 203)`);
  });

  it('cuts an overlong header name before an emoji, never between its two halves', () => {
    const name = `X-${'n'.repeat(21)}😀${'n'.repeat(200)}`;
    expect(problemOf({ headers: { [name]: 'x' } })).toBe(`headers: header names must be at most 128 characters ('X-${'n'.repeat(21)}…' has ${name.length})`);
  });

  it('names a 100,000-character metadata key by its start and length, not whole', () => {
    const key = 'k'.repeat(100_000);
    expect(problemOf({ metadata: { [key]: 'x' } })).toBe(`metadata."${'k'.repeat(MESSAGE_QUOTE_MAX_LENGTH)}…" (100000 characters): keys must be 1 to 256 characters`);
  });

  it('quotes a 100,000-character address by its start and length, not whole', () => {
    const address = `${'a'.repeat(100_000)}@`;
    expect(problemOf({ to: address })).toBe(`to: '${'a'.repeat(MESSAGE_QUOTE_MAX_LENGTH)}…' (100001 characters) is not a valid email address`);
  });

  it('quotes an address holding CR/LF JSON-escaped, never raw', () => {
    expect(problemOf({ to: ['ok@example.com', 'a\r\nb@x.com'] })).toBe('to[1]: "a\\r\\nb@x.com" is not a valid email address');
    expect(problemOf({ to: 'x@' })).toBe("to: 'x@' is not a valid email address");
  });

  it('refuses, naming the field, a recipient at a punycode domain that decodes to nothing (no such domain can exist)', () => {
    expect(problemOf({ to: 'ok@example.com', cc: ['Ann <ann@xn--zz.example>'] })).toBe("cc[0]: 'Ann <ann@xn--zz.example>' is not a valid email address");
  });

  it('measures a large attachment, as an NATS max_payload raised past 5 MB lets through, rather than failing on the regexp stack', () => {
    // 7.5 MB of base64 (5.6 MB decoded): under the 10 MB limit, far past what a backtracking pattern can walk.
    const content = 'QUJD'.repeat(1_875_000);
    const parsed = parseEmailInput({ from: 'a@example.com', to: 'b@example.com', subject: 'Hi', text: 'Hello', attachments: [{ filename: 'a.bin', content }] }, '', new Date());
    expect(parsed.attachments[0].size).toBe(5_625_000);
    expect(problemOf({ attachments: [{ filename: 'a.bin', content: `${content}Q!` }] })).toBe('attachments[0].content: must be base64');
  });

  it('takes base64 with its padding and refuses it misplaced, mislength or outside the alphabet', () => {
    const problem = (content: string) => problemOf({ attachments: [{ filename: 'a.bin', content }] });
    for (const good of ['', 'QQ==', 'QUI=', 'QUJD', 'QUJDQQ==', '+/+/']) expect(problem(good)).toBeNull();
    for (const bad of ['Q===', '====', 'QQ==QUJD', 'QU=D', 'not*base64!']) expect(problem(bad)).toBe('attachments[0].content: must be base64');
  });

  it('says what is wrong with base64 that its encoder wrapped, wrote URL-safe or left unpadded', () => {
    const problem = (content: string) => problemOf({ attachments: [{ filename: 'a.bin', content }] });
    const wrapped = 'attachments[0].content: must be base64 on one line, without line breaks or spaces (base64 -w 0 writes it so)';
    for (const content of ['QUJD\nQUJD', 'QUJD\r\nQQ==', 'QUJD ', ' QUJD', 'QU JD', 'QUJD\t']) expect(problem(content)).toBe(wrapped);
    const urlSafe = 'attachments[0].content: must be base64 in the standard alphabet (+ and /), not the URL-safe one (- and _)';
    for (const content of ['-_-_', 'QUJ-', 'Q_==', 'Pz8_']) expect(problem(content)).toBe(urlSafe);
    const unpadded = 'attachments[0].content: must be base64 padded with = to a multiple of 4 characters';
    for (const content of ['Q', 'QQ', 'QUI', 'QQ=', 'QUJDQQ', 'QUJD=']) expect(problem(content)).toBe(unpadded);
  });

  it('refuses two attachments with one contentId (case aside), which a cid: reference in the HTML could not tell apart', () => {
    const image = (contentId: string) => ({ filename: `${contentId}.png`, content: 'aGk=', contentId });
    expect(problemOf({ attachments: [image('logo'), image('banner'), image('Logo')] })).toBe(
      "attachments[2].contentId: 'Logo' is already the contentId of attachments[0]; a cid: reference must name one attachment",
    );
    expect(problemOf({ attachments: [image('logo'), image('banner'), { filename: 'plain.txt', content: 'aGk=' }, { filename: 'other.txt', content: 'aGk=' }] })).toBeNull();
    // null is "none" on the API, as a field left out: two attachments without an id share nothing.
    const withoutId = (filename: string) => ({ filename, content: 'aGk=', contentId: null as unknown as string });
    expect(problemOf({ attachments: [withoutId('a.txt'), withoutId('b.txt')] })).toBeNull();
  });
});
