import fc from 'fast-check';
import { LIST_ID_PREFIXES } from '@mailroom/contracts';

/** A valid ULID, so `<prefix><ULID>` is an id of the right form that names nothing. */
export const SAMPLE_ULID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

const AWKWARD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'a\udc00b',
  '\udfff\ud800',
  '\u202eevil\u202c',
  '\u200b',
  '😀',
  '👩‍👩‍👧‍👦',
  'e\u0301',
  'a\r\nBcc: x@example.com',
  '\t',
  '../..',
  '%00',
  '%',
  '%E0%A4%A',
  '%2F',
  '__proto__',
  'constructor',
  'null',
  'true',
  '0',
  '-1',
  '1e400',
  'NaN',
  '2026-13-45T25:61:61Z',
  '2026-02-30',
  '0000-00-00T00:00:00Z',
  '+275760-09-13T00:00:00.001Z',
  '-271821-04-20T00:00:00Z',
  '9999-12-31T23:59:59.9999999999Z',
  '2026-W48-3',
  '2026-329',
  '20261125T100000Z',
  '1970-01-01T00:00:00Z',
  '2026-11-26T10:00:00+25:00',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '${jndi:ldap://x}',
  '{{7*7}}',
  ...Object.values(LIST_ID_PREFIXES).flatMap((prefix) => [prefix, `${prefix}${SAMPLE_ULID}`, `${prefix}${SAMPLE_ULID.toLowerCase()}`, `${prefix}${SAMPLE_ULID}x`]),
  'sup_x',
  'mr_test_',
];

/** Numbers at and past every limit a field of this API has, and those JSON can write but JavaScript bends. */
const AWKWARD_NUMBERS = [0, -0, -1, 1, 1.5, 8, 9, 32, 33, 50, 51, 100, 101, 255, 256, 998, 999, 2 ** 31, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), 1e21, 1e308, 5e-324, 4.2e-7];

const longString = fc.constantFrom(33, 101, 234, 254, 257, 321, 999, 1001, 2049, 5000, 70_000).chain((length) =>
  fc.constantFrom('a', 'é', '😀', '\u0000', 'ab.').map((unit) => unit.repeat(Math.ceil(length / unit.length)).slice(0, Math.max(length, 1))),
);

/** A nest of arrays and objects around a value, to and past the 32 levels the API reads. */
const nested = fc.tuple(fc.constantFrom(2, 31, 32, 33, 200), fc.boolean()).map(([depth, arrays]) => {
  let value: unknown = 'x';
  for (let level = 0; level < depth; level += 1) value = arrays ? [value] : { a: value };
  return value;
});

/** Any value of any JSON type a client could send where the API expects something else. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(...AWKWARD_NUMBERS),
  fc.constantFrom(...AWKWARD_STRINGS),
  longString,
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom([], [null], [[]], [''], {}, { a: 1 }, { constructor: 'x' }, { toString: 'x', valueOf: 1 }, { length: 1 }, [{}, 1, 'a']),
  nested,
  fc.jsonValue({ maxDepth: 3 }),
  // Past the NATS server's max_payload (1 MB), which the whole request must fit.
  fc.constant('x'.repeat(1_100_000)),
);

/** What a query string or path segment may carry: raw text, exactly as sent on the wire (not encoded again). */
export const hostileUrlText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('%00', '%ff', '%FF%FE', '%E0%A4%A', '%', '%%', '%2', '%zz', '%2F', '%2e%2e', '..%2F..', '%C0%AE', '%ED%A0%80', '%F4%90%80%80', '+', '%20', '%0D%0A', 'a%26b%3Dc', '%23', '?', '%3F', ';', ',', '[]', 'a[b]=c'),
  fc.constantFrom(...AWKWARD_STRINGS).map(encodeURIComponentLoosely),
  longString.map(encodeURIComponentLoosely),
  fc.constantFrom(...AWKWARD_NUMBERS).map(String),
);

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** encodeURIComponent, except that a lone surrogate (which it throws on) goes out as the UTF-8 bytes of one (ED A0 80), as a careless client sends it. */
function encodeURIComponentLoosely(text: string): string {
  return text.split(LONE_SURROGATE).map(encodeURIComponent).join('%ED%A0%80');
}

/** One change to a body that was valid: a field made hostile, dropped, added, or the whole body replaced. */
export type Mutation =
  | { kind: 'set'; path: (string | number)[]; value: unknown }
  | { kind: 'drop'; path: (string | number)[] }
  | { kind: 'unknown-field'; name: string; value: unknown }
  | { kind: 'replace'; value: unknown }
  | { kind: 'wrap-in-array' }
  | { kind: 'duplicate-key'; path: (string | number)[]; value: unknown }
  | { kind: 'none' };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), path: fc.array(fc.nat(7), { minLength: 1, maxLength: 3 }), value: hostileValue }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), path: fc.array(fc.nat(7), { minLength: 1, maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unknown-field' as const), name: fc.constantFrom('extra', 'constructor', 'toString', 'hasOwnProperty', 'id', 'object', 'createdAt', 'ｆｒｏｍ', 'From', 'to '), value: hostileValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), value: hostileValue }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'wrap-in-array' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('duplicate-key' as const), path: fc.array(fc.nat(7), { minLength: 1, maxLength: 2 }), value: hostileValue }) },
  { weight: 5, arbitrary: fc.constant({ kind: 'none' as const }) },
);

/**
 * Applies a mutation and writes the body as the JSON text to send. A path of
 * numbers picks among the keys (or items) present at each level, so it always
 * lands on something the valid body has. A duplicated key is written in the
 * text itself, which JSON.stringify cannot do: the later value is the hostile one.
 */
export function mutatedBodyText(body: unknown, change: Mutation): string {
  const copy = structuredClone(body);
  switch (change.kind) {
    case 'none':
      return JSON.stringify(copy);
    case 'replace':
      return JSON.stringify(change.value);
    case 'wrap-in-array':
      return JSON.stringify([copy]);
    case 'unknown-field':
      return isObject(copy) ? JSON.stringify(Object.assign(copy, { [change.name]: change.value })) : JSON.stringify(copy);
    case 'set': {
      const target = landing(copy, change.path);
      if (!target) return JSON.stringify(change.value);
      (target.parent as Record<string | number, unknown>)[target.key] = change.value;
      return JSON.stringify(copy);
    }
    case 'drop': {
      const target = landing(copy, change.path);
      if (!target) return JSON.stringify(copy);
      if (Array.isArray(target.parent)) target.parent.splice(Number(target.key), 1);
      else delete (target.parent as Record<string, unknown>)[target.key];
      return JSON.stringify(copy);
    }
    case 'duplicate-key': {
      const target = landing(copy, change.path);
      if (!target || Array.isArray(target.parent)) return JSON.stringify(copy);
      // The marker sits at the key's place; the text puts the key twice there, the valid value first.
      const marker = '__fuzz_duplicate_key__';
      const original = (target.parent as Record<string, unknown>)[target.key];
      (target.parent as Record<string, unknown>)[target.key] = marker;
      const key = JSON.stringify(target.key);
      return JSON.stringify(copy).replace(JSON.stringify(marker), `${JSON.stringify(original ?? null)},${key}:${JSON.stringify(change.value) ?? 'null'}`);
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The container and key a path of indexes reaches, or null where the body has nothing to index. */
function landing(value: unknown, path: number[] | (string | number)[]): { parent: object; key: string | number } | null {
  let parent: unknown = value;
  let found: { parent: object; key: string | number } | null = null;
  for (const step of path) {
    const keys = Array.isArray(parent) ? parent.map((_, index) => index) : isObject(parent) ? Object.keys(parent) : [];
    if (!keys.length) break;
    const key = keys[Number(step) % keys.length];
    found = { parent: parent as object, key };
    parent = (parent as Record<string | number, unknown>)[key];
  }
  return found;
}
