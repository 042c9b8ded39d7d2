import { asDeliveryRetention, asRetrySchedule } from './webhook-parsers';

describe('asRetrySchedule', () => {
  it('reads the default schedule, with 0s meaning at once', () => {
    expect(asRetrySchedule('0s,5s,5m,30m,2h,5h,10h,10h')).toEqual([0, 5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
  });

  it('reads a compressed schedule with spaces', () => {
    expect(asRetrySchedule(' 0ms , 200ms,400ms ')).toEqual([0, 200, 400]);
  });

  it('names the bad item and refuses empty items, bare numbers and huge lists', () => {
    expect(() => asRetrySchedule('0s,5x')).toThrow("item 2: '5x' is not a duration");
    expect(() => asRetrySchedule('0s,,5s')).toThrow(/comma-separated/);
    expect(() => asRetrySchedule('5')).toThrow(/not a duration/);
    expect(() => asRetrySchedule(Array(51).fill('1s').join(','))).toThrow(/at most 50/);
  });
});

describe('asDeliveryRetention', () => {
  it('takes 8 days or more', () => {
    expect(asDeliveryRetention('30d')).toBe(30 * 86_400_000);
    expect(asDeliveryRetention('192h')).toBe(8 * 86_400_000);
  });

  it('refuses less than the event stream keeps an event, saying why', () => {
    expect(() => asDeliveryRetention('7d')).toThrow(/shorter than 8d.*sent again/);
    expect(() => asDeliveryRetention('30')).toThrow(/not a duration/);
  });
});
