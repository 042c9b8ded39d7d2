import { escapedForMessage, excerptForMessage, isUnsafeInMessage } from '@mailroom/errors';

/**
 * A field name as messages write it: as the client wrote it, or JSON-quoted
 * (`""` for an empty name, `"fro\r\nm"` with its escapes) when written as it
 * is it would name nothing or carry control characters, or when it is too long
 * to quote whole (`"fff…" (100000 characters)`: the quotes set the cut name
 * apart from the note that it was cut).
 */
export function fieldName(key: string): string {
  return key === '' || isUnsafeInMessage(key) || excerptForMessage(key) !== key ? escapedForMessage(key) : key;
}

/**
 * `parent.field`, or `parent[0]` for an array index: the paths validation
 * messages start with. Only an index (a number) takes brackets: a key made of
 * digits is a field as the client wrote it (`{"7": …}` is `7`, not `[7]`).
 */
export function fieldPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  const name = fieldName(key);
  return parent ? `${parent}.${name}` : name;
}
