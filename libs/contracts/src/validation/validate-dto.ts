import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { findNulCharacter } from './find-nul-character';

/** class-validator's default messages begin with the property name, which the path already gives. */
function withoutPropertyName(message: string, property: string): string {
  return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
}

/** `field: problem` for the first failing field, with nested paths such as `attachments[0].filename`. */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string | null {
  for (const error of errors) {
    const path = /^\d+$/.test(error.property) ? `${parent}[${error.property}]` : parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) {
      if (error.constraints.whitelistValidation) return `${path}: is not a known field`;
      // A field left out or null fails every rule at once; the first rule's complaint would mislead.
      if (error.value === undefined) return `${path}: is required`;
      if (error.value === null) return `${path}: must not be null`;
      return `${path}: ${withoutPropertyName(Object.values(error.constraints)[0], error.property)}`;
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
  const withNul = findNulCharacter(plain);
  if (withNul !== null) throw new DomainError(ErrorCode.ValidationError, `${withNul}: must not contain the NUL character (U+0000)`);
  const instance = plainToInstance(cls, plain, { enableImplicitConversion: false });
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  const problem = describeValidationErrors(errors);
  if (problem) throw new DomainError(ErrorCode.ValidationError, problem);
  return instance;
}
