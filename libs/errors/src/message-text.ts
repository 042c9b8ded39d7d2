/**
 * Characters an error message must never carry raw: C0 and C1 controls, DEL,
 * the Unicode line and paragraph separators, and half a surrogate pair. A
 * CR/LF a client sent (in a field name, an id in the path, an address) would
 * otherwise split a log line or a client's one-line error display when the
 * message is quoted back. Half a surrogate pair (an emoji a client cut by
 * UTF-16 units, or V8's JSON.parse message cut its quote of the body) is no
 * character: the body goes out as `\ud83d`, which strict decoders (Rust's
 * serde_json, say) refuse, so the client could not read the error at all.
 */
const UNSAFE_IN_MESSAGE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The most of a client's text a message quotes, in UTF-16 code units (as the
 * API's own length limits count). A field name, a metadata key, an id in the
 * path or an address can be as long as the request: quoted whole, a 1 MB
 * unknown field name made the 422 as large as the request and went into the
 * logs whole. 64 shows enough to find the text; a longer one is cut there,
 * with `…` and its full length.
 */
export const MESSAGE_QUOTE_MAX_LENGTH = 64;

export function isUnsafeInMessage(text: string): boolean {
  return UNSAFE_IN_MESSAGE.test(text);
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * `text` when it is at most `maxLength` code units, else its first `maxLength`
 * and `…`: one fewer when the cut would fall between the two halves of a
 * surrogate pair (an emoji), which would leave half a character, no character
 * at all, in the message.
 */
export function excerptForMessage(text: string, maxLength = MESSAGE_QUOTE_MAX_LENGTH): string {
  if (text.length <= maxLength) return text;
  const end = isHighSurrogate(text.charCodeAt(maxLength - 1)) ? maxLength - 1 : maxLength;
  return `${text.slice(0, end)}…`;
}

const unicodeEscape = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` as a JSON string, with DEL, C1 and the separators \u-escaped too (JSON.stringify escapes C0 only). */
function jsonEscaped(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\u009f\u2028\u2029]/g, unicodeEscape);
}

/**
 * Text written by someone else that may hold the client's characters (a
 * parser's error quoting part of the body), with every unsafe character
 * escaped in place as JSON writes it (`\n`, `\u0001`); the rest is left as written.
 */
export function withUnsafeEscaped(text: string): string {
  return text.replace(new RegExp(UNSAFE_IN_MESSAGE.source, 'g'), (char) => jsonEscaped(char).slice(1, -1));
}

/** The excerpt of `text`, quoted by `quote`; followed by the full length when the excerpt is not the whole of it. */
function quotedExcerpt(text: string, quote: (excerpt: string) => string): string {
  const excerpt = excerptForMessage(text);
  return excerpt === text ? quote(text) : `${quote(excerpt)} (${text.length} characters)`;
}

/** `text` JSON-escaped (see jsonEscaped), cut to MESSAGE_QUOTE_MAX_LENGTH. */
export function escapedForMessage(text: string): string {
  return quotedExcerpt(text, jsonEscaped);
}

/** A value the client sent, quoted for a message: `'a@x.com'` as written, or JSON-escaped when that would carry unsafe characters; cut to MESSAGE_QUOTE_MAX_LENGTH. */
export function quotedForMessage(value: string): string {
  return quotedExcerpt(value, (excerpt) => (isUnsafeInMessage(excerpt) ? jsonEscaped(excerpt) : `'${excerpt}'`));
}
