import { ArrayMaxSize, Length, MaxLength, ValidationArguments, ValidationOptions } from 'class-validator';

type RuleOptions = Omit<ValidationOptions, 'message'>;

/*
 * class-validator's length rules with the API's wording ("must be at most 100
 * characters", "must not be empty") in place of its own ("must be shorter than
 * or equal to 100 characters", "must be longer than or equal to 1
 * characters"), which some fields answered and others not. Still MaxLength,
 * Length and ArrayMaxSize underneath, so the OpenAPI keywords are the same.
 */

/** At most `max` characters. */
export function IsAtMostCharacters(max: number, options: RuleOptions = {}): PropertyDecorator {
  return MaxLength(max, { message: `${options.each ? 'each value ' : ''}must be at most ${max} characters`, ...options });
}

/** `min` to `max` characters; an empty string, where `min` is 1, is "must not be empty". */
export function IsCharactersBetween(min: number, max: number, options: RuleOptions = {}): PropertyDecorator {
  const tooShort = min === 1 ? 'must not be empty' : `must be at least ${min} characters`;
  const message = ({ value }: ValidationArguments) => (typeof value === 'string' && value.length < min ? tooShort : `must be at most ${max} characters`);
  return Length(min, max, { message, ...options });
}

/** An array of at most `max` items; `items` names them ("must hold at most 100 attachments"). */
export function HasAtMostItems(max: number, items = 'items', options: RuleOptions = {}): PropertyDecorator {
  return ArrayMaxSize(max, { message: `must hold at most ${max} ${items}`, ...options });
}
