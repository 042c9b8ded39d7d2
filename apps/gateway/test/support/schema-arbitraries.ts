import fc from 'fast-check';

export type JsonSchema = Record<string, any>;

/** Values a field's schema cannot tell (an address, a URL the stack can reach), by `Schema.property` or property. */
export type ValueHints = Record<string, fc.Arbitrary<unknown>>;

const ADDRESSES = ['hi@acme.test', 'Acme <hi@acme.test>', 'delivered@example.com', 'bounced@example.com', 'ann@bücher.de', 'someone+x@example.org'];
const HOSTNAMES = ['acme.test', 'example.com', 'fuzz.example.org', 'bücher.de', 'links.acme.test'];

export const address = fc.constantFrom(...ADDRESSES);
export const hostname = fc.constantFrom(...HOSTNAMES);
export const base64 = fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString('base64'));
/** Timestamps a request may well take: mostly soon (a schedule is at most 30 days ahead), some past. */
export const isoTimestamp = fc
  .integer({ min: -86_400_000, max: 40 * 86_400_000 })
  .map((offset) => new Date(Date.now() + 60_000 + offset).toISOString());

/**
 * A fast-check arbitrary of values that follow a JSON Schema of the gateway's
 * OpenAPI document (resolving its `$ref`s), so that mutations start from a
 * body the API would take and each mutation tests one thing. Bounded: arrays
 * and maps hold at most three items, since limits are the mutations' business.
 */
export function arbitraryOf(schema: JsonSchema, components: Record<string, JsonSchema>, hints: ValueHints = {}, owner = ''): fc.Arbitrary<unknown> {
  if (schema.$ref) {
    const name = String(schema.$ref).replace('#/components/schemas/', '');
    return arbitraryOf(components[name], components, hints, name);
  }
  const options = schema.oneOf ?? schema.anyOf ?? schema.allOf;
  if (Array.isArray(options) && !schema.type) return fc.oneof(...options.map((option: JsonSchema) => arbitraryOf(option, components, hints, owner)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const types: string[] = [schema.type ?? 'string'].flat();
  return fc.oneof(...types.map((type) => arbitraryOfType(type, schema, components, hints, owner)));
}

function arbitraryOfType(type: string, schema: JsonSchema, components: Record<string, JsonSchema>, hints: ValueHints, owner: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? 0, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? 0, max: schema.maximum ?? 1000, noNaN: true });
    case 'array':
      return fc.array(arbitraryOf(schema.items ?? {}, components, hints, owner), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case 'object':
      return objectArbitrary(schema, components, hints, owner);
    default:
      return stringArbitrary(schema);
  }
}

function objectArbitrary(schema: JsonSchema, components: Record<string, JsonSchema>, hints: ValueHints, owner: string): fc.Arbitrary<unknown> {
  if (schema.properties) {
    const model = Object.fromEntries(
      Object.entries(schema.properties as Record<string, JsonSchema>).map(([name, property]) => [
        name,
        hints[`${owner}.${name}`] ?? hints[name] ?? arbitraryOf(property, components, hints, owner),
      ]),
    );
    return fc.record(model, { requiredKeys: schema.required ?? [] });
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    const key = fc.constantFrom('X-Fuzz', 'X-Campaign', 'order', 'constructor', 'toString');
    return fc.dictionary(key, arbitraryOf(schema.additionalProperties, components, hints, owner), { maxKeys: 3 });
  }
  return fc.constant({});
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'date-time') return isoTimestamp;
  if (schema.format === 'hostname') return hostname;
  if (schema.contentEncoding === 'base64') return base64;
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((value) => value.length >= (schema.minLength ?? 0) && value.length <= (schema.maxLength ?? Infinity));
  }
  return fc.string({ minLength: Math.max(schema.minLength ?? 1, 1), maxLength: Math.min(schema.maxLength ?? 40, 40) });
}
