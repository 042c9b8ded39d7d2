/**
 * The path of the first string (value or object key) holding U+0000, or null.
 * Postgres cannot store NUL in text or jsonb, so such input must be refused
 * as a validation error before it reaches a service, not fail as a 500 there.
 */
export function findNulCharacter(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findNulCharacter(item, `${path}[${index}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const itemPath = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) return itemPath;
      const found = findNulCharacter(item, itemPath);
      if (found !== null) return found;
    }
  }
  return null;
}
