import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { findUnstorableInput } from './find-unstorable-input';
import { fieldPath } from './field-path';
import { findNonObjectNested } from './find-non-object-nested';
import { hidePrototypeNamedKeys, restorePrototypeNamedKeys, unmarkKey, unmarkKeys } from './prototype-named-keys';

/**
 * class-validator's default messages name the property, which the path already
 * gives: "name must be a string", and for an element "each value in tags must
 * be a string" (which answered `tags: each value in tags must be a string`).
 */
function withoutPropertyName(message: string, property: string): string {
  if (message.startsWith(`each value in ${property} `)) return `each value ${message.slice(`each value in ${property} `.length)}`;
  return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
}

/**
 * The rules that say what type a field has. A value of the wrong type fails
 * its field's other rules too (a number has no length, an object is not a
 * short array), and class-validator lists the constraints in the order the
 * decorators were applied, bottom-up, so the first one was often a pattern
 * or a size: `subject: 123` answered "must not contain CR or LF". The type is
 * the complaint that helps.
 */
const TYPE_CONSTRAINTS = ['isString', 'isArray', 'isBoolean', 'isInt', 'isNumber', 'isObject'];

/** The type rule written highest above the field (the last applied) when one fails, else the first failure. */
function mainComplaint(constraints: Record<string, string>): string {
  const failed = Object.keys(constraints);
  const types = failed.filter((name) => TYPE_CONSTRAINTS.includes(name));
  return types.length ? types[types.length - 1] : failed[0];
}

/**
 * What a rule applied to each item (`each: true`) may carry as its `context`
 * to be reported against the item it refuses (`events[3]: …`) rather than the
 * whole array: class-validator reports such a rule on the array and does not
 * say which item broke it.
 */
export interface ItemRuleContext {
  failingItem(items: unknown[]): number;
}

/** The context of an each-item rule that refuses the items `refuses` holds for: the first such is named. */
export function refusingItems(refuses: (item: unknown) => boolean): ItemRuleContext {
  return { failingItem: (items) => items.findIndex(refuses) };
}

/** `path[i]` when the rule that failed says which item it refused, else `path`. */
function pathOfFailure(path: string, error: ValidationError, constraint: string): string {
  const context = error.contexts?.[constraint] as Partial<ItemRuleContext> | undefined;
  if (!Array.isArray(error.value) || typeof context?.failingItem !== 'function') return path;
  const index = context.failingItem(error.value);
  return index === -1 ? path : fieldPath(path, index);
}

/** `field: problem` for the first failing field, with nested paths such as `attachments[0].filename`. */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string | null {
  for (const error of errors) {
    // class-validator reports an array's items with the array as their target, each under its index.
    const path = fieldPath(parent, Array.isArray(error.target) ? Number(error.property) : unmarkKey(error.property));
    if (error.constraints) {
      if (error.constraints.whitelistValidation) return `${path}: is not a known field`;
      // A field left out or null fails every rule at once; the first rule's complaint would mislead.
      if (error.value === undefined) return `${path}: is required`;
      if (error.value === null) return `${path}: must not be null`;
      const constraint = mainComplaint(error.constraints);
      return `${pathOfFailure(path, error, constraint)}: ${withoutPropertyName(error.constraints[constraint], error.property)}`;
    }
    const nested = describeValidationErrors(error.children ?? [], path);
    if (nested) return nested;
  }
  return null;
}

/**
 * Validates a plain object against a DTO class. Unknown fields are rejected
 * so that typos do not silently do nothing.
 */
export function validateDto<T extends object>(cls: new () => T, plain: unknown, what = 'body'): T {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    throw new DomainError(ErrorCode.ValidationError, `${what}: must be a JSON object`);
  }
  const unstorable = findUnstorableInput(plain);
  if (unstorable !== null) throw new DomainError(ErrorCode.ValidationError, unstorable);
  const instance = plainToInstance(cls, hidePrototypeNamedKeys(plain), { enableImplicitConversion: false });
  const problem =
    findNonObjectNested(instance) ??
    describeValidationErrors(validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true }));
  if (problem) throw new DomainError(ErrorCode.ValidationError, unmarkKeys(problem));
  restorePrototypeNamedKeys(instance);
  return instance;
}
