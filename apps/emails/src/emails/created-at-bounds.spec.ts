import { toWholeMilliseconds, withWholeMillisecondDates } from './created-at-bounds';

describe(toWholeMilliseconds.name, () => {
  it('rounds a bound finer than a millisecond up to the next one, whatever its offset', () => {
    expect(toWholeMilliseconds('2026-11-26T04:03:51.020500+00:00')).toBe('2026-11-26T04:03:51.021Z');
    expect(toWholeMilliseconds('2026-11-26T04:03:51.9999999Z')).toBe('2026-11-26T04:03:52.000Z');
    expect(toWholeMilliseconds('2026-11-26T09:33:51.0201+05:30')).toBe('2026-11-26T04:03:51.021Z');
    expect(toWholeMilliseconds('1969-12-31T23:59:59.9995Z')).toBe('1970-01-01T00:00:00.000Z');
  });

  it('leaves whole milliseconds, coarser bounds and the last moments of year 9999 as they are', () => {
    for (const value of ['2026-11-26T04:03:51.020000+00:00', '2026-11-26T04:03:51.020Z', '2026-11-26T04:03:51Z', '2026-11-26', '9999-12-31T23:59:59.9999Z']) {
      expect(toWholeMilliseconds(value)).toBe(value);
    }
  });
});

describe(withWholeMillisecondDates.name, () => {
  it('rounds both date bounds and keeps the other filters', () => {
    expect(withWholeMillisecondDates({ status: 'queued', tags: ['a'], fromDate: '2026-11-26T04:03:51.0201Z', toDate: '2026-11-27T00:00:00Z' })).toEqual({
      status: 'queued',
      tags: ['a'],
      fromDate: '2026-11-26T04:03:51.021Z',
      toDate: '2026-11-27T00:00:00Z',
    });
  });
});
