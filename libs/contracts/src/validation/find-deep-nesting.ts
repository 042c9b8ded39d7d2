/**
 * Far deeper than any body of this API (a batch's attachment is five levels
 * down), and far shallower than the stack the recursive walks after it need:
 * `{"metadata": [[[[…]]]]}` 100,000 deep parses as JSON, and then overflowed
 * the stack of the first walk over it (a 500).
 */
export const MAX_NESTING_DEPTH = 32;

/** The top-level field under which objects or arrays nest deeper than the limit, or null. Iterative, so any depth is safe. */
export function findDeepNesting(body: object, limit = MAX_NESTING_DEPTH): string | null {
  const pending: { value: unknown; depth: number; field: string }[] = Object.entries(body).map(([field, value]) => ({ value, depth: 1, field }));
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    if (next.depth >= limit) return next.field;
    for (const child of Object.values(next.value)) pending.push({ value: child, depth: next.depth + 1, field: next.field });
  }
  return null;
}
