/**
 * Whether `wide` matches every subject `narrow` matches, by NATS's wildcards:
 * `*` is one token, `>` one or more to the end.
 */
export function subjectCovers(wide: string, narrow: string): boolean {
  const wideTokens = wide.split('.');
  const narrowTokens = narrow.split('.');
  for (const [index, token] of wideTokens.entries()) {
    if (token === '>') return narrowTokens.length > index;
    const other = narrowTokens[index];
    if (other === undefined || other === '>') return false;
    if (token !== '*' && token !== other) return false;
  }
  return wideTokens.length === narrowTokens.length;
}

/**
 * The subjects a stream needs so that it takes every subject of `required`:
 * null when it takes them already. Otherwise the ones it had, less those a
 * required one covers (nats-server refuses overlapping subjects in one
 * stream: `email.delivered` beside `email.>`), plus the missing required ones.
 */
export function subjectsWith(current: readonly string[], required: readonly string[]): string[] | null {
  const missing = required.filter((subject) => !current.some((existing) => subjectCovers(existing, subject)));
  if (!missing.length) return null;
  return [...current.filter((existing) => !missing.some((subject) => subjectCovers(subject, existing))), ...missing];
}
