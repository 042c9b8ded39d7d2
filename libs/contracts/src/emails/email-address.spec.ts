import addressparser from 'nodemailer/lib/addressparser';
import { envelopeEmailAddress, normalizeEmailAddress, parseEmailAddress } from './email-address';

describe(parseEmailAddress.name, () => {
  it.each([
    ['hi@acme.com', 'hi@acme.com', ''],
    ['Acme <Hi@Acme.COM>', 'hi@acme.com', 'Acme'],
    ['"Acme, Inc." <hi@acme.com>', 'hi@acme.com', 'Acme, Inc.'],
    ['first.last+tag@sub.example.co.uk', 'first.last+tag@sub.example.co.uk', ''],
    ['user@xn--bcher-kva.example', 'user@xn--bcher-kva.example', ''],
    // An internationalized domain is kept as written for the headers and stored in punycode.
    ['Ann@Bücher.example', 'ann@xn--bcher-kva.example', ''],
    ['Ann <ann@bücher.example>', 'ann@xn--bcher-kva.example', 'Ann'],
    ['"Zoë" <zoe@例え.jp>', 'zoe@xn--r8jz45g.jp', 'Zoë'],
    ['Zoe@XN--R8JZ45G.jp', 'zoe@xn--r8jz45g.jp', ''],
  ])('accepts %s', (raw, normalized, name) => {
    expect(parseEmailAddress(raw)).toMatchObject({ normalized, name, domain: normalized.split('@')[1] });
  });

  it.each(['zoë@example.com', 'a@bü_cher.example', `a@${'ü'.repeat(60)}.example`, 'x@', '@acme.com', 'plain', 'a@b', 'a@b.c', 'a..b@acme.com', 'a@-acme.com', 'a@acme.com, b@acme.com', 'a@acme.com\r\nBcc: x@y.com', '', 'Group: a@acme.com;'])(
    'rejects %j',
    (raw) => {
      expect(parseEmailAddress(raw)).toBeNull();
    },
  );

  // A label in punycode that decodes to nothing names no domain anyone could register: such an address was
  // accepted (202), then bounced as a domain that does not exist, and went on the suppression list.
  it.each(['a@xn--zz.example', 'Ann <a@XN--ZZ.example>', 'a@mail.xn--a.example', 'a@xn--.example'])('rejects %j, whose punycode decodes to nothing', (raw) => {
    expect(parseEmailAddress(raw)).toBeNull();
  });

  // The conversion to punycode parses a URL's host: it drops tabs, decodes %41 and stops at a backslash, so
  // `a@x.testü<TAB>x.test` was the recipient a@x.xn--testx-nva.test while the To header showed a@x.test.
  it.each(['a@x.testü\tx.test', 'a@ü%41.example', 'a@ü.example\\x', "a@bü'cher.example", 'Ann <a@bü cher.example>'])(
    'rejects %j, an internationalized domain holding ASCII other than letters, digits, hyphens and dots',
    (raw) => {
      expect(parseEmailAddress(raw)).toBeNull();
    },
  );

  // nodemailer's parser drops the quotes of a quoted local part and, when text
  // precedes them, takes that text for a display name: `ceo."smith"@y.com` came
  // back as smith@y.com, a different mailbox, and the send went there.
  it.each(['"q"@acme.com', 'ceo."smith"@acme.com', '"first".last@acme.com'])('rejects the quoted local part %j', (raw) => {
    expect(parseEmailAddress(raw)).toBeNull();
  });

  // An unquoted display name is words (RFC 5322 phrase): it holds no `@`, `<` or `>`. nodemailer's parser took the
  // first <addr> and folded the rest into the name, so `Ann <x@acme.com> <ceo@bank.example>` went out as
  // `"Ann ceo@bank.example" <x@acme.com>`, a name that shows another domain's address to the reader.
  it.each(['Ann <x@acme.com> <ceo@bank.example>', 'Ann ceo@bank.example <x@acme.com>', 'Ann <ceo@bank.example> x@acme.com', '<x@acme.com> Ann', 'Ann > <x@acme.com>', '<@bank.example x@acme.com>'])(
    'rejects the name-and-address %j, whose display name holds address syntax unquoted',
    (raw) => {
      expect(parseEmailAddress(raw)).toBeNull();
    },
  );

  // Without angle brackets nodemailer's parser takes one address and makes the other words the name:
  // `x@acme.com ceo@bank.example` went out as `"ceo@bank.example" <x@acme.com>`, and `@x@acme.com` as `"@" <x@acme.com>`.
  it.each(['x@acme.com ceo@bank.example', 'ceo@bank.example x@acme.com', 'CEO ceo@bank.example x@acme.com', '@x@acme.com', 'x@acme.com @'])(
    'rejects the bare address %j, beside which other words hold address syntax unquoted',
    (raw) => {
      expect(parseEmailAddress(raw)).toBeNull();
    },
  );

  it.each([
    ['"ceo@bank.example" <x@acme.com>', 'x@acme.com', 'ceo@bank.example'],
    ['"Ann <a>" <x@acme.com>', 'x@acme.com', 'Ann <a>'],
    ['Ann (CEO) <x@acme.com>', 'x@acme.com', 'Ann'],
    ['J. Smith <x@acme.com>', 'x@acme.com', 'J. Smith'],
  ])('accepts %s, whose display name is quoted or plain words', (raw, normalized, name) => {
    expect(parseEmailAddress(raw)).toMatchObject({ normalized, name });
  });

  it.each([
    ['x@acme.com (Ann)', 'x@acme.com', 'Ann'],
    ['x@acme.com;', 'x@acme.com', ''],
    [',x@acme.com', 'x@acme.com', ''],
    ['"Ann \\"Q\\" Lee" <ann@acme.com>', 'ann@acme.com', 'Ann "Q" Lee'],
  ])('still accepts %s, whose address stands in it as written', (raw, normalized, name) => {
    expect(parseEmailAddress(raw)).toMatchObject({ normalized, name });
  });
});

describe(`${parseEmailAddress.name} on its shortcuts for the common shapes`, () => {
  it.each(['hi@acme.com', "o'hara+x@acme.com", 'Mixed.Case@Sub.Acme.com', 'a{b}|c~d@acme.io'])('reads %s as the full parser does', (raw) => {
    expect(parseEmailAddress(raw)).toEqual({ ...parseEmailAddress(`<${raw}>`), raw });
  });

  it.each([
    'Acme Billing <Billing@Acme.com>',
    'Bench <bench@bench.test>',
  ])('reads %s as the full parser does', (raw) => {
    const [{ name, address }] = addressparser(raw) as Array<{ name: string; address: string }>;
    expect(parseEmailAddress(raw)).toMatchObject({ raw, name, address });
  });

  it.each(['Acme <a..b@acme.com>', 'Acme <a@b>', 'Acme <a@acme.com>, b@acme.com'])('still rejects %j', (raw) => {
    expect(parseEmailAddress(raw)).toBeNull();
  });
});

describe(normalizeEmailAddress.name, () => {
  it('gives every spelling of one address the same form', () => {
    const forms = ['Ann@Bücher.Example', 'ann@bücher.example', 'ANN@XN--BCHER-KVA.EXAMPLE', 'ann@xn--bcher-kva.example'];
    expect(new Set(forms.map(normalizeEmailAddress))).toEqual(new Set(['ann@xn--bcher-kva.example']));
  });
});

describe(envelopeEmailAddress.name, () => {
  it('keeps the local part as written and gives the domain in lower-case punycode', () => {
    expect(envelopeEmailAddress('Ann.Lee@Bücher.Example')).toBe('Ann.Lee@xn--bcher-kva.example');
    expect(envelopeEmailAddress('ANN@XN--BCHER-KVA.EXAMPLE')).toBe('ANN@xn--bcher-kva.example');
    expect(envelopeEmailAddress('Ann@Example.COM')).toBe('Ann@example.com');
  });

  it('is what a parsed address is sent to, while its normalized form stays the lower-case one', () => {
    expect(parseEmailAddress('Ann <Ann.Lee@Example.COM>')).toMatchObject({ envelope: 'Ann.Lee@example.com', normalized: 'ann.lee@example.com' });
  });
});
