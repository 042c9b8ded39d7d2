import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { fieldPath } from './field-path';
import { isPlainObject } from './is-plain-object';

/**
 * The fields a DTO class declares as nested, read once per class: decorators
 * are all applied when the class is defined, and class-validator's lookup
 * costs about 3 µs, on every send.
 */
const nestedFieldsByClass = new WeakMap<Function, { propertyName: string; each: boolean }[]>();
function nestedFieldsOf(cls: Function): { propertyName: string; each: boolean }[] {
  let fields = nestedFieldsByClass.get(cls);
  if (!fields) {
    fields = getMetadataStorage()
      .getTargetValidationMetadatas(cls, '', true, false)
      .filter((metadata) => metadata.type === ValidationTypes.NESTED_VALIDATION)
      .map(({ propertyName, each }) => ({ propertyName, each }));
    nestedFieldsByClass.set(cls, fields);
  }
  return fields;
}

/**
 * `path: problem` for the first field declared as a nested DTO (@ValidateNested)
 * that does not hold a JSON object, or, with `each`, an array of them; null when
 * all do. class-validator walks into an array wherever it finds one, so
 * `tracking: []` passed as an empty object, a batch item `[{…}]` was judged by
 * what was inside it, and a string got "nested property … must be either object
 * or array". Runs on the instance class-transformer built, whose nested objects
 * are instances of their DTO and so name the rules to look at next.
 */
export function findNonObjectNested(instance: object, parent = ''): string | null {
  for (const { propertyName, each } of nestedFieldsOf(instance.constructor)) {
    const value = (instance as Record<string, unknown>)[propertyName];
    // Whether a field may be left out or null is its own rules' business.
    if (value === undefined || value === null) continue;
    const path = fieldPath(parent, propertyName);
    if (each && !Array.isArray(value)) return `${path}: must be an array`;
    const items = each ? (value as unknown[]).map((item, index) => [fieldPath(path, index), item] as const) : [[path, value] as const];
    for (const [itemPath, item] of items) {
      if (!isPlainObject(item)) return `${itemPath}: must be an object`;
      const inner = findNonObjectNested(item, itemPath);
      if (inner !== null) return inner;
    }
  }
  return null;
}
