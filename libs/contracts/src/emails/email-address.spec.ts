import { parseEmailAddress } from './email-address';

describe(parseEmailAddress.name, () => {
  it.each([
    ['hi@acme.com', 'hi@acme.com', ''],
    ['Acme <Hi@Acme.COM>', 'hi@acme.com', 'Acme'],
    ['"Acme, Inc." <hi@acme.com>', 'hi@acme.com', 'Acme, Inc.'],
    ['first.last+tag@sub.example.co.uk', 'first.last+tag@sub.example.co.uk', ''],
    ['user@xn--bcher-kva.example', 'user@xn--bcher-kva.example', ''],
  ])('accepts %s', (raw, normalized, name) => {
    expect(parseEmailAddress(raw)).toMatchObject({ normalized, name, domain: normalized.split('@')[1] });
  });

  it.each(['x@', '@acme.com', 'plain', 'a@b', 'a@b.c', 'a..b@acme.com', 'a@-acme.com', 'a@acme.com, b@acme.com', 'a@acme.com\r\nBcc: x@y.com', '', 'Group: a@acme.com;'])(
    'rejects %j',
    (raw) => {
      expect(parseEmailAddress(raw)).toBeNull();
    },
  );
});
