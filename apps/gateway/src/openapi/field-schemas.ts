import type { JsonSchema } from './custom-validator-converters';

/** JSON Schema keywords to add to generated DTO schemas, by DTO and property. */
export type FieldSchemas = Record<string, Record<string, JsonSchema>>;

/**
 * The DTO schemas with each entry of `table` merged into that property's
 * generated schema. Throws on an entry that names no generated property, so
 * a renamed field cannot leave its rules behind.
 */
export function withFieldSchemas(schemas: Record<string, JsonSchema>, table: FieldSchemas, tableName: string): Record<string, JsonSchema> {
  for (const [dto, fields] of Object.entries(table)) {
    const properties = schemas[dto]?.properties as Record<string, JsonSchema> | undefined;
    for (const [field, rules] of Object.entries(fields)) {
      if (!properties?.[field]) throw new Error(`${tableName} names ${dto}.${field}, which has no schema`);
      properties[field] = Object.assign({}, properties[field], rules);
    }
  }
  return schemas;
}
