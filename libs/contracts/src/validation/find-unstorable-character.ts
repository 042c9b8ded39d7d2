import { fieldPath } from './field-path';

/** NUL, or a UTF-16 surrogate without its other half. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const NUL_PROBLEM = 'must not contain the NUL character (U+0000)';
const SURROGATE_PROBLEM = 'must not contain an unpaired UTF-16 surrogate (\\uD800-\\uDFFF without its other half), which is no character';

function problemOf(text: string): string | null {
  const found = UNSTORABLE.exec(text);
  if (!found) return null;
  return found[0] === '\u0000' ? NUL_PROBLEM : SURROGATE_PROBLEM;
}

/**
 * `path: problem` for the first string (value or object key) holding a
 * character Postgres cannot store, or null. NUL cannot be stored in text or
 * jsonb at all (a 500 there). An unpaired surrogate (`"\ud83d"`, half an emoji,
 * as a client that cuts a string by UTF-16 units sends) is written as U+FFFD:
 * the request answered 2xx, echoing what it was sent, and then stored and
 * mailed something else. Both are refused as validation errors before a
 * service sees them.
 */
export function findUnstorableCharacter(value: unknown, path = ''): string | null {
  if (typeof value === 'string') {
    const problem = problemOf(value);
    return problem === null ? null : `${path}: ${problem}`;
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUnstorableCharacter(item, fieldPath(path, index));
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const itemPath = fieldPath(path, key);
      const keyProblem = problemOf(key);
      if (keyProblem !== null) return `${itemPath}: ${keyProblem}`;
      const found = findUnstorableCharacter(item, itemPath);
      if (found !== null) return found;
    }
  }
  return null;
}
