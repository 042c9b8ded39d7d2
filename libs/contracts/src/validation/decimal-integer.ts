import { Transform } from 'class-transformer';

/**
 * A query parameter of decimal digits as a number; anything else is left as
 * it is, for the field's integer rule to refuse. Number() alone would read
 * `0x10` as 16, `1e1` as 10 and ` 10` (`%2010`) as 10, forms no client means
 * and that the API documents nowhere.
 */
export function asDecimalInteger(value: unknown): unknown {
  return typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value;
}

/** Applies asDecimalInteger to a DTO field before it is validated (validateDto runs plainToInstance first). */
export function ReadAsDecimalInteger(): PropertyDecorator {
  return Transform(({ value }) => asDecimalInteger(value));
}
