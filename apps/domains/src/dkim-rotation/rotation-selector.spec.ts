import { dkimTargetLabel, parseDkimTargetLabel } from '../domains/dns-records';
import { rotationSelector } from './rotation-selector';

const november = new Date('2026-11-29T10:00:00Z');

describe(rotationSelector.name, () => {
  it("is mr<yyyymm> of the rotation's month when the domain never had it", () => {
    expect(rotationSelector(november, new Set(['mr202605']))).toBe('mr202611');
  });

  it('takes r<yyyymm><a-z0-9> in order when the month is taken, never one used before, and 8 characters long', () => {
    expect(rotationSelector(november, new Set(['mr202611']))).toBe('r202611a');
    expect(rotationSelector(november, new Set(['mr202611', 'r202611a', 'r202611b']))).toBe('r202611c');
    const used = new Set(['mr202611']);
    for (let i = 0; i < 36; i += 1) {
      const selector = rotationSelector(november, used)!;
      expect(selector).toHaveLength(8);
      expect(used.has(selector)).toBe(false);
      used.add(selector);
    }
    expect(rotationSelector(november, used)).toBeNull();
  });

  it('gives selectors the DNS responder reads back from their zone label', () => {
    const id = 'dom_01JDX4Q2T9ZK6M8N3P5R7S9V1W';
    for (const dkimSelector of ['r202611a', 'r2026119']) {
      const label = dkimTargetLabel({ id, dkimSelector });
      expect(label).toHaveLength(35);
      expect(parseDkimTargetLabel(label)).toEqual({ id, dkimSelector });
    }
  });
});
