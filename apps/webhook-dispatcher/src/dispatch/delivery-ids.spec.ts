import { firstIdAt } from '@mailroom/database';
import { fanOutIdPrefix } from './delivery-ids';

describe(fanOutIdPrefix.name, () => {
  it('is whd_ and the first 20 characters of a ULID made now, so fan-out ids fall inside the retention bounds of their time', () => {
    const before = Date.now();
    const prefix = fanOutIdPrefix();
    const after = Date.now();
    expect(prefix).toMatch(/^whd_[0-9A-HJKMNP-TV-Z]{20}$/);
    // The ids built on it (prefix + at least 6 digits) sort after every id of an earlier millisecond and before any later one.
    expect(prefix >= firstIdAt('whd_', before)).toBe(true);
    expect(`${prefix}999999` < firstIdAt('whd_', after + 1)).toBe(true);
  });

  it('differs between statements made in the same millisecond (50 random bits)', () => {
    const prefixes = new Set(Array.from({ length: 1000 }, () => fanOutIdPrefix()));
    expect(prefixes.size).toBe(1000);
  });
});
