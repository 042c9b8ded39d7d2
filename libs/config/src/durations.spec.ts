import { asDuration, asDurationList, asDurationUpTo, asRetentionOrOff } from './durations';
import { asOptionalAddress } from './mail-parsers';

describe('durations', () => {
  it('reads each unit in milliseconds', () => {
    expect(asDuration('500ms')).toBe(500);
    expect(asDuration('5s')).toBe(5000);
    expect(asDuration('1m')).toBe(60_000);
    expect(asDuration('2h')).toBe(7_200_000);
    expect(asDuration('1d')).toBe(86_400_000);
    expect(asDuration('1.5s')).toBe(1500);
  });

  it('refuses a number without a unit, an unknown unit and zero', () => {
    expect(() => asDuration('60')).toThrow(/not a duration/);
    expect(() => asDuration('5 minutes')).toThrow(/not a duration/);
    expect(() => asDuration('0s')).toThrow(/longer than 0/);
  });

  it('refuses more than a hundred years at boot: a huge one failed only at run time, each purge or retry out of the range of a timestamp', () => {
    expect(asDuration('36500d')).toBe(36_500 * 86_400_000);
    expect(() => asDuration('36501d')).toThrow(/longer than 100 years \(36500d\)/);
    expect(() => asDuration('1000000000d')).toThrow(/longer than 100 years/);
    expect(() => asDuration(`${'9'.repeat(400)}d`)).toThrow(/longer than 100 years/);
    expect(() => asRetentionOrOff('1000000000d')).toThrow(/longer than 100 years/);
    expect(() => asDurationList('1m,1000000000d')).toThrow(/item 2: .* longer than 100 years/);
  });

  it('reads the default retry schedule', () => {
    expect(asDurationList('1m,5m,15m,1h,3h,6h,12h,24h,24h')).toEqual([60_000, 300_000, 900_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000, 86_400_000]);
    expect(asDurationList(' 500ms , 1s ')).toEqual([500, 1000]);
  });

  it('names the bad item of a list', () => {
    expect(() => asDurationList('1m,5x,1h')).toThrow("item 2: '5x' is not a duration");
    expect(() => asDurationList('1m,,1h')).toThrow(/comma-separated list/);
  });
});

describe('asRetentionOrOff', () => {
  it('reads off as keep for ever (0) and a duration of a day or more', () => {
    expect(asRetentionOrOff('off')).toBe(0);
    expect(asRetentionOrOff(' OFF ')).toBe(0);
    expect(asRetentionOrOff('90d')).toBe(90 * 86_400_000);
    expect(asRetentionOrOff('24h')).toBe(86_400_000);
  });

  it('refuses less than a day, pointing at off', () => {
    expect(() => asRetentionOrOff('5m')).toThrow(/shorter than 1d; use off/);
    expect(() => asRetentionOrOff('0d')).toThrow(/longer than 0/);
    expect(() => asRetentionOrOff('never')).toThrow(/not a duration/);
  });
});

describe('asDurationUpTo (TLSRPT_SEND_DELAY)', () => {
  it('takes a duration up to the bound, and refuses a longer one', () => {
    expect(asDurationUpTo('12h')('1h')).toBe(3_600_000);
    expect(asDurationUpTo('12h')('12h')).toBe(12 * 3_600_000);
    expect(() => asDurationUpTo('12h')('13h')).toThrow(/longer than 12h/);
  });
});

describe('asOptionalAddress (TLSRPT_FROM)', () => {
  it('takes an address or empty, and refuses anything else', () => {
    expect(asOptionalAddress(' tls-reports@example.com ')).toBe('tls-reports@example.com');
    expect(asOptionalAddress('')).toBe('');
    expect(() => asOptionalAddress('Reports <r@example.com>')).toThrow(/must be an email address/);
  });
});
