/**
 * class-transformer's plainToInstance skips every key that names a member of
 * Object.prototype (`constructor`, `toString`, `valueOf`…), and crashes on an
 * object whose `constructor` is a string. So an unknown field of such a name
 * was dropped instead of refused, a metadata or header entry of such a name
 * was lost, and `metadata: {"constructor": "x"}` answered 500. Such keys are
 * renamed out of its way before the transform and back after validation.
 *
 * The mark is NUL, which no key can hold by then (findUnstorableInput
 * refuses it first), so a renamed key cannot collide with one the client sent.
 */
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));
const MARK = '\u0000';

function hasPrototypeNamedKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasPrototypeNamedKey);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, item]) => PROTOTYPE_NAMES.has(key) || hasPrototypeNamedKey(item));
}

function markKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(markKeys);
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[PROTOTYPE_NAMES.has(key) ? MARK + key : key] = markKeys(item);
  return copy;
}

/** A copy with the prototype-named keys renamed, or the value itself when it has none (nearly always). */
export function hidePrototypeNamedKeys(value: unknown): unknown {
  return hasPrototypeNamedKey(value) ? markKeys(value) : value;
}

/** Gives the renamed keys of a transformed value their own names again, in place. */
export function restorePrototypeNamedKeys(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(restorePrototypeNamedKeys);
  if (value === null || typeof value !== 'object') return;
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const item = object[key];
    restorePrototypeNamedKeys(item);
    if (!key.startsWith(MARK)) continue;
    delete object[key];
    // defineProperty, not assignment: assigning `__proto__` would set the prototype.
    Object.defineProperty(object, key.slice(MARK.length), { value: item, enumerable: true, writable: true, configurable: true });
  }
}

/** A key as the client wrote it, renamed or not. */
export function unmarkKey(key: string): string {
  return key.startsWith(MARK) ? key.slice(MARK.length) : key;
}

/** A validation message about a renamed key, with the key as the client wrote it. */
export function unmarkKeys(message: string): string {
  return message.split(MARK).join('');
}
