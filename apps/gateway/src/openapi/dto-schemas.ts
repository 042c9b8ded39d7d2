import type { MetadataStorage as TransformerMetadataStorage } from 'class-transformer/types/MetadataStorage';
import { getMetadataStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { customValidatorConverters, JsonSchema } from './custom-validator-converters';
import { withSendFieldLimits } from './send-field-limits';
import { withWebhookFieldRules } from './webhook-field-rules';

// class-transformer keeps its @Type() metadata here but ships no typings for the path;
// the nested DTOs (attachments, tracking, batch items) are found through it.
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformerMetadataStorage };

export const SCHEMA_REF_PREFIX = '#/components/schemas/';

export const schemaRef = (name: string): JsonSchema => ({ $ref: `${SCHEMA_REF_PREFIX}${name}` });

/**
 * JSON Schemas of every class-validator DTO, named after its class. They are
 * read from the same metadata the validation pipe uses, so the reference
 * cannot drift from what the API accepts.
 */
export function dtoSchemas(): Record<string, JsonSchema> {
  const schemas = validationMetadatasToSchemas({
    classValidatorMetadataStorage: getMetadataStorage(),
    classTransformerMetadataStorage: defaultMetadataStorage,
    refPointerPrefix: SCHEMA_REF_PREFIX,
    additionalConverters: customValidatorConverters(),
  }) as Record<string, JsonSchema>;
  // validateDto runs with forbidNonWhitelisted: a field the DTO does not declare is a 422.
  for (const schema of Object.values(schemas)) if (schema.type === 'object') schema.additionalProperties = false;
  return withWebhookFieldRules(withSendFieldLimits(schemas));
}

/** The named schemas plus every schema they reference, transitively, so components holds no dead entries. */
export function reachableSchemas(all: Record<string, JsonSchema>, roots: Iterable<string>): Record<string, JsonSchema> {
  const picked: Record<string, JsonSchema> = {};
  const pending = [...roots];
  while (pending.length) {
    const name = pending.pop()!;
    if (picked[name] || !all[name]) continue;
    picked[name] = all[name];
    pending.push(...referencedNames(all[name]));
  }
  return picked;
}

export function referencedNames(schema: unknown): string[] {
  const names: string[] = [];
  const visit = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF_PREFIX)) names.push(value.slice(SCHEMA_REF_PREFIX.length));
      else visit(value);
    }
  };
  visit(schema);
  return names;
}
