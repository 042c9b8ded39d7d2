import { createdAtBound, withCreatedAtBounds } from './created-at-bounds';

describe(createdAtBound.name, () => {
  it('rounds a bound finer than a millisecond up to the next one, whatever its offset', () => {
    expect(createdAtBound('2026-11-26T04:03:51.020500+00:00')).toBe('2026-11-26T04:03:51.021Z');
    expect(createdAtBound('2026-11-26T04:03:51.9999999Z')).toBe('2026-11-26T04:03:52.000Z');
    expect(createdAtBound('2026-11-26T09:33:51.0201+05:30')).toBe('2026-11-26T04:03:51.021Z');
    expect(createdAtBound('1969-12-31T23:59:59.9995Z')).toBe('1970-01-01T00:00:00.000Z');
  });

  it('writes every bound as a UTC instant, so no session time zone can move it; a bare date is a UTC day', () => {
    expect(createdAtBound('2026-11-26')).toBe('2026-11-26T00:00:00.000Z');
    expect(createdAtBound('2026-11-26T10:00:00+05:30')).toBe('2026-11-26T04:30:00.000Z');
    expect(createdAtBound('2026-11-26T04:03:51.020000Z')).toBe('2026-11-26T04:03:51.020Z');
  });

  it('keeps a bound past year 9999 as written, which Postgres reads and no email reaches', () => {
    expect(createdAtBound('9999-12-31T23:59:59.9999Z')).toBe('9999-12-31T23:59:59.9999Z');
    expect(createdAtBound('9999-12-31T20:00:00-05:00')).toBe('9999-12-31T20:00:00-05:00');
  });

  it('moves a bound in year 0000 in UTC, which Postgres cannot read, to the start of year 0001, which bounds alike', () => {
    expect(createdAtBound('0001-01-01T00:00:00+14:00')).toBe('0001-01-01T00:00:00.000Z');
    expect(createdAtBound('0001-01-01T13:59:59.999+14:00')).toBe('0001-01-01T00:00:00.000Z');
    expect(createdAtBound('0001-01-01T14:00:00.001+14:00')).toBe('0001-01-01T00:00:00.001Z');
  });
});

describe(withCreatedAtBounds.name, () => {
  it('rewrites both date bounds and keeps the other filters', () => {
    expect(withCreatedAtBounds({ status: 'queued', tags: ['a'], fromDate: '2026-11-26T04:03:51.0201Z', toDate: '2026-11-27' })).toEqual({
      status: 'queued',
      tags: ['a'],
      fromDate: '2026-11-26T04:03:51.021Z',
      toDate: '2026-11-27T00:00:00.000Z',
    });
  });
});
