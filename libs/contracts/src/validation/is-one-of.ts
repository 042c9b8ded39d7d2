import { IsIn, ValidationOptions } from 'class-validator';

/**
 * One of `values`, refused in the one wording every list field uses:
 * `must be one of a, b` (`each value must be one of a, b` for an array's
 * items). Still class-validator's IsIn underneath, so the OpenAPI document
 * states the values as an enum.
 */
export function IsOneOf(values: readonly unknown[], options: Omit<ValidationOptions, 'message'> = {}): PropertyDecorator {
  const message = `${options.each ? 'each value ' : ''}must be one of ${values.join(', ')}`;
  return IsIn([...values], { message, ...options });
}
