import { findDeepNesting, MAX_NESTING_DEPTH } from './find-deep-nesting';

const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));

describe(findDeepNesting.name, () => {
  it('names the top-level field under which the nesting goes too deep, however deep', () => {
    expect(findDeepNesting({ ok: { a: [1, { b: 'c' }] }, metadata: nested(100_000) })).toBe('metadata');
  });

  it('allows nesting up to the limit, counting the top-level field as the first level', () => {
    expect(findDeepNesting({ a: nested(MAX_NESTING_DEPTH - 1) })).toBeNull();
    expect(findDeepNesting({ a: nested(MAX_NESTING_DEPTH) })).toBe('a');
  });

  it('finds nothing in a flat body or in scalars', () => {
    expect(findDeepNesting({ a: 1, b: 'x', c: null, d: [] })).toBeNull();
  });
});
