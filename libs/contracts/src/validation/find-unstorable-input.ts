import { findDeepNesting, MAX_NESTING_DEPTH } from './find-deep-nesting';
import { findNulCharacter } from './find-nul-character';

/**
 * `field: problem` for input no service could take, whatever its schema:
 * objects or arrays nested too deep for the walks over it (checked first,
 * because the NUL walk recurses), or a NUL character Postgres cannot store.
 * Null when there is none. HTTP bodies and stream events both pass here.
 */
export function findUnstorableInput(value: object): string | null {
  const tooDeep = findDeepNesting(value);
  if (tooDeep !== null) return `${tooDeep}: must not nest objects or arrays more than ${MAX_NESTING_DEPTH} levels deep`;
  const withNul = findNulCharacter(value);
  return withNul === null ? null : `${withNul}: must not contain the NUL character (U+0000)`;
}
