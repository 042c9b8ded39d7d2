/**
 * Characters a message must never carry raw: C0 and C1 controls, DEL, and the
 * Unicode line and paragraph separators. A CR/LF in a field name would
 * otherwise split a log line or a client's one-line error display.
 */
const UNSAFE_IN_MESSAGE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * A field name as messages write it: as the client wrote it, or JSON-quoted
 * (`""` for an empty name, `"fro\r\nm"` with its escapes) when written as it
 * is it would name nothing or carry control characters.
 */
export function fieldName(key: string): string {
  if (key !== '' && !UNSAFE_IN_MESSAGE.test(key)) return key;
  // JSON.stringify escapes C0 controls only; DEL, C1 and the separators go through \u escapes too.
  return JSON.stringify(key).replace(/[\u007f-\u009f\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
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
