import { decodeAuthFailure, encodeAuthFailure } from './auth-failure';

const bytes = (text: string) => new TextEncoder().encode(text);

describe(decodeAuthFailure.name, () => {
  it('reads what encodeAuthFailure wrote, for IPv4 and IPv6 addresses', () => {
    for (const address of ['203.0.113.1', '2001:db8::1', '::ffff:203.0.113.1']) {
      expect(decodeAuthFailure(encodeAuthFailure({ address, failedAtMs: 1_700_000_000_000 }))).toEqual({ address, failedAtMs: 1_700_000_000_000 });
    }
  });

  it.each([
    'not json',
    'null',
    '[]',
    '"203.0.113.1"',
    '{}',
    '{"failedAtMs":1}',
    '{"address":"203.0.113.1"}',
    '{"address":"203.0.113.1","failedAtMs":"1"}',
    '{"address":"203.0.113.1","failedAtMs":null}',
    '{"address":"not-an-ip","failedAtMs":1}',
    '{"address":42,"failedAtMs":1}',
    '{"address":"","failedAtMs":1}',
  ])('is null for %s', (text) => expect(decodeAuthFailure(bytes(text))).toBeNull());

  it('keeps only the known fields', () => {
    expect(decodeAuthFailure(bytes('{"address":"203.0.113.1","failedAtMs":5,"extra":{"deep":true}}'))).toEqual({ address: '203.0.113.1', failedAtMs: 5 });
  });
});
