import { fieldPath } from './field-path';
import { findDeepNesting, MAX_NESTING_DEPTH } from './find-deep-nesting';
import { findUnstorableCharacter } from './find-unstorable-character';

/**
 * `field: problem` for input no service could take, whatever its schema:
 * objects or arrays nested too deep for the walks over it (checked first,
 * because the character walk recurses), or a character Postgres cannot store
 * (NUL, an unpaired surrogate). Null when there is none. HTTP bodies and
 * stream events both pass here.
 */
export function findUnstorableInput(value: object): string | null {
  const tooDeep = findDeepNesting(value);
  if (tooDeep !== null) return `${fieldPath('', tooDeep)}: must not nest objects or arrays more than ${MAX_NESTING_DEPTH} levels deep`;
  return findUnstorableCharacter(value);
}
