/**
 * `parent.field`, or `parent[0]` for an array index: the paths validation
 * messages start with. Only an index (a number) takes brackets: a key made of
 * digits is a field as the client wrote it (`{"7": …}` is `7`, not `[7]`), and
 * an empty key is written `""` so that the message still names something.
 */
export function fieldPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  const name = key === '' ? '""' : key;
  return parent ? `${parent}.${name}` : name;
}
