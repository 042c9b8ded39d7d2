/**
 * In a query string (application/x-www-form-urlencoded) an unencoded `+` is a
 * space, so an offset (`…T00:00:00+02:00`) or a plus address
 * (`reader+news@example.com`) the caller wrote arrives with a space in its
 * place. What came in then looks right to them, and a bare "is invalid"
 * leaves them puzzled: the message says how to write it.
 */
export const PLUS_READ_AS_SPACE_HINT = ' (a + in a query string reads as a space: write it %2B)';

/** The hint when `value` holds a space and would pass `isValid` with `+` there, else ''. */
export function plusReadAsSpaceHint(value: unknown, isValid: (withPlus: string) => boolean): string {
  return typeof value === 'string' && value.includes(' ') && isValid(value.replaceAll(' ', '+')) ? PLUS_READ_AS_SPACE_HINT : '';
}
