import { ValidateIf } from 'class-validator';

/**
 * Skips a field's rules only when the field is left out. Unlike @IsOptional(),
 * null is still validated, so it fails the field's type rule with a 422 that
 * names the field. PATCH bodies use it: there null means "clear", and a field
 * that cannot be cleared must say so rather than be silently left unchanged.
 */
export function IsOmittable(): PropertyDecorator {
  return ValidateIf((_, value) => value !== undefined);
}
