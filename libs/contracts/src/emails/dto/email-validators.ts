import { Matches, registerDecorator, ValidationOptions } from 'class-validator';
import { EMAIL_LIMITS } from '../email-limits';

/** `to`, `cc`, `bcc`, `replyTo`: one string, or an array of `min`..`max` strings. */
export function IsStringOrStringArray(min: number, max: number, options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isStringOrStringArray',
      target: target.constructor,
      propertyName,
      // Kept as constraints so that the API reference states the same bounds (minItems, maxItems).
      constraints: [min, max],
      options: { message: `must be a string or an array of ${min} to ${max} strings`, ...options },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' ||
          (Array.isArray(value) && value.length >= min && value.length <= max && value.every((item) => typeof item === 'string')),
      },
    });
}

/** headers and metadata: a JSON object whose values are all strings. */
export function IsFlatStringMap(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isFlatStringMap',
      target: target.constructor,
      propertyName,
      options: { message: 'must be an object whose values are strings', ...options },
      validator: {
        validate: (value: unknown) =>
          value !== null &&
          typeof value === 'object' &&
          !Array.isArray(value) &&
          Object.values(value as Record<string, unknown>).every((item) => typeof item === 'string'),
      },
    });
}


/** A `tags` query parameter (GET /v1/emails, GET /v1/analytics): 1 to tagsMax comma-separated tags a send accepts. */
export function IsTagsQuery(): PropertyDecorator {
  const tag = `[A-Za-z0-9_-]{1,${EMAIL_LIMITS.tagMaxLength}}`;
  return Matches(new RegExp(`^${tag}(,${tag}){0,${EMAIL_LIMITS.tagsMax - 1}}$`), {
    message: `must be 1 to ${EMAIL_LIMITS.tagsMax} comma-separated tags of A-Z, a-z, 0-9, _ and -`,
  });
}
