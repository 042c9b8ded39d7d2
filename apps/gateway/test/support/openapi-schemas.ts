import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export type Json = Record<string, any>;

export interface Operation {
  /** `METHOD /path`, as the document spells the path. */
  key: string;
  method: string;
  path: string;
  op: Json;
}

/** A well-formed ULID for ids that exist nowhere. */
export const SAMPLE_ID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const COMPONENT_REF = '#/components/schemas/';

export function operationsOf(doc: Json): Operation[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method, path, op: op as Json })),
  );
}

/**
 * Compiles schemas of the document with ajv (draft 2020-12, with formats); the document's own
 * references (#/components/schemas/…) resolve inside each compiled schema.
 */
export function documentSchemaCompiler(doc: Json, options: { strict?: boolean } = {}): (schema: Json) => ValidateFunction {
  const schemas: Json = doc.components.schemas;
  const shape = (schema: Json): Json => (options.strict ? closed(schema, schemas) : schema);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'mailroom', components: { schemas: Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, shape(schema)])) } });
  const toAbsolute = (schema: Json): Json => JSON.parse(JSON.stringify(schema).replaceAll(`"${COMPONENT_REF}`, `"mailroom${COMPONENT_REF}`));
  return (schema) => ajv.compile(toAbsolute(shape(schema)));
}

function resolved(schema: Json, schemas: Json): Json {
  return typeof schema.$ref === 'string' && schema.$ref.startsWith(COMPONENT_REF) ? resolved(schemas[schema.$ref.slice(COMPONENT_REF.length)], schemas) : schema;
}

/** `allOf` of object schemas (a component extending another) as one object schema: all their properties, all their required ones. */
function merged(schema: Json, schemas: Json): Json {
  const { allOf, ...own } = resolved(schema, schemas);
  if (!Array.isArray(allOf)) return own;
  const parts = [...allOf.map((part: Json) => merged(part, schemas)), own];
  if (!parts.every((part) => part.type === undefined || part.type === 'object')) return resolved(schema, schemas);
  return Object.assign(own, {
    type: 'object',
    properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
    required: [...new Set(parts.flatMap((part) => part.required ?? []))],
  });
}

const SCHEMA_LISTS = ['anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_VALUES = ['items', 'additionalProperties', 'not', 'contains'];

/**
 * The schema with every object that lists its properties closed (`additionalProperties: false`) unless it
 * says what else it takes, so a field the document does not list fails. `allOf` is merged first, since
 * each closed part would refuse the properties of the others.
 */
export function closed(schema: Json, schemas: Json): Json {
  const node = Object.assign({}, Array.isArray(schema.allOf) ? merged(schema, schemas) : schema);
  if (node.properties) {
    node.properties = Object.fromEntries(Object.entries(node.properties as Json).map(([name, property]) => [name, closed(property, schemas)]));
    if (node.additionalProperties === undefined && node.unevaluatedProperties === undefined) node.additionalProperties = false;
  }
  for (const keyword of SCHEMA_LISTS) if (Array.isArray(node[keyword])) node[keyword] = node[keyword].map((part: Json) => closed(part, schemas));
  for (const keyword of SCHEMA_VALUES) if (node[keyword] && typeof node[keyword] === 'object') node[keyword] = closed(node[keyword], schemas);
  return node;
}

/** ajv's errors, one line each: where, and what. */
export function schemaErrors(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`);
}
