/**
 * Characters an error message must never carry raw: C0 and C1 controls, DEL,
 * and the Unicode line and paragraph separators. A CR/LF a client sent (in a
 * field name, an id in the path, an address) would otherwise split a log line
 * or a client's one-line error display when the message is quoted back.
 */
const UNSAFE_IN_MESSAGE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export function isUnsafeInMessage(text: string): boolean {
  return UNSAFE_IN_MESSAGE.test(text);
}

/** `text` as a JSON string, with DEL, C1 and the separators \u-escaped too (JSON.stringify escapes C0 only). */
export function escapedForMessage(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\u009f\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A value the client sent, quoted for a message: `'a@x.com'` as written, or JSON-escaped when that would carry unsafe characters. */
export function quotedForMessage(value: string): string {
  return isUnsafeInMessage(value) ? escapedForMessage(value) : `'${value}'`;
}
