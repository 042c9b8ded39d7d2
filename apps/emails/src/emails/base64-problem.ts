/**
 * Why a string is not base64 as an attachment's content must be (RFC 4648 §4:
 * the standard alphabet, padded, on one line), or null when it is. Each
 * common near miss is named, since each is base64 to the tool that wrote it:
 * `base64` and MIME encoders wrap lines at 76 characters, JWT-style encoders
 * use the URL-safe alphabet and drop the padding.
 *
 * The alphabet and padding are checked with a flat pattern and the groups of
 * four by length: a pattern repeating a group per four characters overflowed
 * the regexp stack past 5 MB.
 */
const STANDARD_ALPHABET = /^[A-Za-z0-9+/]*={0,2}$/;

export function base64Problem(value: string): string | null {
  const inAlphabet = STANDARD_ALPHABET.test(value);
  if (inAlphabet && value.length % 4 === 0) return null;
  if (/\s/.test(value)) return 'must be base64 on one line, without line breaks or spaces (base64 -w 0 writes it so)';
  if (/[-_]/.test(value) && /^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) return 'must be base64 in the standard alphabet (+ and /), not the URL-safe one (- and _)';
  if (inAlphabet) return 'must be base64 padded with = to a multiple of 4 characters';
  return 'must be base64';
}
