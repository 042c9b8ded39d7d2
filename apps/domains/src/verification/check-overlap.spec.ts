import { isOvertaken } from './check-overlap';

const at = (iso: string) => new Date(iso);

describe(isOvertaken.name, () => {
  const read = { status: 'verified' as const, lastCheckedAt: at('2026-11-26T10:00:00Z') };

  it('applies a check when no other was applied since it read the row', () => {
    expect(isOvertaken(read, { ...read, lastCheckedAt: new Date(read.lastCheckedAt.getTime()) }, 'manual')).toBe(false);
    expect(isOvertaken(read, { ...read }, 'background')).toBe(false);
    expect(isOvertaken({ status: 'pending', lastCheckedAt: null }, { status: 'pending', lastCheckedAt: null }, 'manual')).toBe(false);
  });

  it('drops a verify when another check moved the status meanwhile: it decided on a state that is gone', () => {
    expect(isOvertaken(read, { status: 'failed', lastCheckedAt: at('2026-11-26T10:00:01Z') }, 'manual')).toBe(true);
    expect(isOvertaken({ status: 'pending', lastCheckedAt: null }, { status: 'verified', lastCheckedAt: at('2026-11-26T10:00:01Z') }, 'manual')).toBe(true);
  });

  it('keeps a verify when the check applied meanwhile left the status as it was (a DNS failure, or the same result)', () => {
    expect(isOvertaken(read, { status: 'verified', lastCheckedAt: at('2026-11-26T10:00:01Z') }, 'manual')).toBe(false);
  });

  it('drops a background check whenever another check was applied since: its answers are the older ones', () => {
    expect(isOvertaken(read, { status: 'verified', lastCheckedAt: at('2026-11-26T10:00:01Z') }, 'background')).toBe(true);
  });
});
