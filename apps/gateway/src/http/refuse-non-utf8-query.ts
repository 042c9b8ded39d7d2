import { fieldPath } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** Runs of percent-encoded bytes: a character's UTF-8 bytes are always written in one run. */
const PERCENT_RUNS = /(?:%[0-9A-Fa-f]{2})+/g;
const ENCODING_HINT = "must be UTF-8 once percent-decoded (write each byte of a character's UTF-8 encoding as %XX)";

function isUtf8(component: string): boolean {
  for (const [run] of component.matchAll(PERCENT_RUNS)) {
    try {
      utf8.decode(Buffer.from(run.replace(/%/g, ''), 'hex'));
    } catch {
      return false;
    }
  }
  return true;
}

function decodedName(rawName: string): string {
  try {
    return decodeURIComponent(rawName.replace(/\+/g, ' '));
  } catch {
    // A stray % (no two hex digits after it) is kept as written, as the query parser keeps it.
    return rawName;
  }
}

/**
 * A query parameter whose percent-encoded bytes are not UTF-8 (`to=%C0%AF`,
 * a Latin-1 `caf%E9`) is refused naming it, as a path (404) or a body (400)
 * that is not UTF-8 is: the query parser would read each bad byte as U+FFFD,
 * and the list answer a page for a value nobody sent. A stray `%` is not a
 * byte and is left to the parameter's own rules.
 */
export function assertQueryIsUtf8(url: string): void {
  const start = url.indexOf('?');
  if (start === -1) return;
  for (const pair of url.slice(start + 1).split('&')) {
    const equals = pair.indexOf('=');
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    if (!isUtf8(rawName)) throw DomainError.validation(fieldPath('', rawName), 'must be UTF-8 once percent-decoded (a query parameter name)');
    if (equals !== -1 && !isUtf8(pair.slice(equals + 1))) throw DomainError.validation(fieldPath('', decodedName(rawName)), ENCODING_HINT);
  }
}
