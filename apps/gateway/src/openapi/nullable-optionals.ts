import { getMetadataStorage, IS_OPTIONAL } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { JsonSchema } from './custom-validator-converters';

/**
 * Fields marked @IsOptional(), by DTO class name. class-validator keeps its
 * metadata by class in a map it does not expose; class-validator-jsonschema
 * reads the same map.
 */
function optionalFieldsByClass(): Map<string, Set<string>> {
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<Function, ValidationMetadata[]> };
  const fields = new Map<string, Set<string>>();
  for (const [target, metadatas] of storage.validationMetadatas) {
    for (const metadata of metadatas) {
      if (metadata.name !== IS_OPTIONAL) continue;
      if (!fields.has(target.name)) fields.set(target.name, new Set());
      fields.get(target.name)!.add(metadata.propertyName);
    }
  }
  return fields;
}

/** The schema, also accepting null. */
function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.$ref === 'string') return { anyOf: [{ $ref: schema.$ref }, { type: 'null' }] };
  const copy: JsonSchema = { ...schema };
  if (schema.type === undefined) {
    // No type: anything goes already, unless it is a choice of schemas.
    if (Array.isArray(schema.anyOf)) copy.anyOf = [...schema.anyOf, { type: 'null' }];
    if (Array.isArray(schema.oneOf)) copy.oneOf = [...schema.oneOf, { type: 'null' }];
    return copy;
  }
  const types = [schema.type].flat();
  if (types.includes('null')) return copy;
  copy.type = [...types, 'null'];
  if (Array.isArray(schema.enum)) copy.enum = [...schema.enum, null];
  return copy;
}

/**
 * Request body schemas that accept null where validation does. @IsOptional()
 * lets null through (README: null for an optional field of a creation is the
 * same as leaving it out, and in a PATCH it clears expiresAt or description),
 * but the generated schemas said `type: string`, so a client generated from
 * the reference could not send `"expiresAt": null` to remove an expiry, and a
 * validating proxy refused what the API accepts. Only for bodies: a query
 * parameter cannot be null.
 */
export function withNullableOptionals(bodySchemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const optional = optionalFieldsByClass();
  const result: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(bodySchemas)) {
    const fields = optional.get(name);
    const properties = schema.properties as Record<string, JsonSchema> | undefined;
    if (!fields || !properties) {
      result[name] = schema;
      continue;
    }
    const nullable = Object.fromEntries(Object.entries(properties).map(([field, property]) => [field, fields.has(field) ? orNull(property) : property]));
    result[name] = Object.assign({}, schema, { properties: nullable });
  }
  return result;
}
