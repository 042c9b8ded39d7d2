import secureJsonParse from 'secure-json-parse';
import { DomainError, ErrorCode, withUnsafeEscaped } from '@mailroom/errors';

// secure-json-parse's one message for both kinds of prototype poisoning.
const FORBIDDEN_PROTOTYPE = 'Object contains forbidden prototype property';

/**
 * Fatal: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD.
 * A leading byte order mark is dropped (RFC 8259 §8.1 lets a parser ignore it).
 */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Which of the two keys it was; parsed, since JSON may spell `__proto__` with \u escapes. */
function forbiddenKey(body: string): string {
  try {
    secureJsonParse.parse(body, undefined, { protoAction: 'error', constructorAction: 'ignore' });
    return '"constructor" holding "prototype"';
  } catch {
    return '"__proto__"';
  }
}

/**
 * JSON text is UTF-8 (RFC 8259 §8.1). Decoded leniently, a body in Latin-1 or
 * Windows-1252 had every accented letter replaced by U+FFFD and was stored
 * that way, with a 2xx: the client never learnt its names and subjects were
 * mangled. Such a body is refused (400) instead.
 */
function decodeUtf8(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch {
    throw new DomainError(ErrorCode.InvalidJson, 'The body is not valid JSON: it is not valid UTF-8 (RFC 8259 §8.1); send it UTF-8 encoded.');
  }
}

/**
 * JSON.parse with the guard Fastify's own parser uses: a `__proto__` key, or a
 * `constructor` key holding `prototype`, could change the prototype of objects
 * the server builds from the body, so such a body is refused. Fastify answers
 * every failure with one generic sentence; ours say what is wrong (400
 * invalid_json), so a client can find the mistake in its body.
 */
export function parseJsonBody(raw: Buffer): unknown {
  const body = decodeUtf8(raw);
  try {
    return secureJsonParse.parse(body, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (reason === FORBIDDEN_PROTOTYPE) {
      throw new DomainError(ErrorCode.InvalidJson, `The body is refused: it has the key ${forbiddenKey(body)}, which could alter the server's objects and is accepted nowhere.`);
    }
    throw new DomainError(ErrorCode.InvalidJson, `The body is not valid JSON: ${withUnsafeEscaped(reason)}.`);
  }
}
