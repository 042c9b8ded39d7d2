import { encodeTime, ulid } from './ulid';

const ULID_SHAPE = /^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{26}$/;

describe('ulid', () => {
  it('makes 26 Crockford base32 characters', () => {
    expect(ulid()).toMatch(ULID_SHAPE);
  });

  it('starts with the given time', () => {
    // The spec's own example: ulid(1469918176385) starts 01ARYZ6S41.
    expect(ulid(1469918176385).slice(0, 10)).toBe('01ARYZ6S41');
  });

  it('stays unique across many ids in the same millisecond, over several pool refills', () => {
    const ids = Array.from({ length: 10_000 }, () => ulid(1_700_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sorts ids of different milliseconds by time, whatever their random part', () => {
    const times = [1, 31, 32, 1_000, 1_699_999_999_999, 1_700_000_000_000, 2 ** 48 - 1];
    const ids = times.map((ms) => ulid(ms));
    expect([...ids].sort()).toEqual(ids);
  });

  it('spreads the random characters over the whole alphabet', () => {
    const seen = new Set(Array.from({ length: 200 }, () => ulid().slice(10)).join(''));
    expect(seen.size).toBe(32);
  });
});

describe('encodeTime', () => {
  it('encodes as the ulid package did, including the longer prefixes id floors use', () => {
    expect(encodeTime(0)).toBe('0000000000');
    expect(encodeTime(1469918176385)).toBe('01ARYZ6S41');
    expect(encodeTime(2 ** 48 - 1)).toBe('7ZZZZZZZZZ');
    expect(encodeTime(1700000000123, 12)).toBe('0001HF7YAT3V');
  });

  it.each([-1, 1.5, Number.NaN, 2 ** 48])('refuses %p', (ms) => {
    expect(() => encodeTime(ms)).toThrow(/ULID time/);
  });
});
