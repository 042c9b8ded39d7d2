import { DomainError } from './domain-error';
import { escapedForMessage, excerptForMessage, MESSAGE_QUOTE_MAX_LENGTH, quotedForMessage, withUnsafeEscaped } from './message-text';

/** Half of a surrogate pair without its other half: what a cut by UTF-16 units can leave of an emoji. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('message text', () => {
  it('quotes a value as written when it is safe, and JSON-escaped when it holds control characters or line separators', () => {
    expect(quotedForMessage('a@x.com')).toBe("'a@x.com'");
    expect(quotedForMessage('a\r\nb')).toBe('"a\\r\\nb"');
    expect(quotedForMessage('a\u0085b\u2028')).toBe('"a\\u0085b\\u2028"');
    expect(escapedForMessage('x\u007f')).toBe('"x\\u007f"');
  });

  it('JSON-escapes half a surrogate pair the client sent, which no client can decode as a character, and leaves whole pairs as written', () => {
    expect(quotedForMessage('cut \ud83d')).toBe('"cut \\ud83d"');
    expect(quotedForMessage('\ude00x')).toBe('"\\ude00x"');
    expect(quotedForMessage('whole 😀')).toBe("'whole 😀'");
    expect(withUnsafeEscaped("Unexpected token '\ud83d', \"a😀\ud83d\"")).toBe("Unexpected token '\\ud83d', \"a😀\\ud83d\"");
  });

  it('names an unknown id safely in a 404', () => {
    expect(DomainError.notFound('email', 'email_a\r\nb').message).toBe('No email with id "email_a\\r\\nb" exists.');
    expect(DomainError.notFound('email', 'email_1').message).toBe("No email with id 'email_1' exists.");
  });

  it('quotes text up to the cap whole, and longer text cut at the cap with … and its full length', () => {
    const atCap = 'a'.repeat(MESSAGE_QUOTE_MAX_LENGTH);
    expect(quotedForMessage(atCap)).toBe(`'${atCap}'`);
    expect(quotedForMessage('a'.repeat(100_000))).toBe(`'${atCap}…' (100000 characters)`);
    expect(escapedForMessage('a'.repeat(100_000))).toBe(`"${atCap}…" (100000 characters)`);
  });

  it('JSON-escapes the shown part of a long value that holds control characters, and counts the whole value', () => {
    const value = `a\r\n${'b'.repeat(100_000)}`;
    expect(quotedForMessage(value)).toBe(`"a\\r\\n${'b'.repeat(MESSAGE_QUOTE_MAX_LENGTH - 3)}…" (100003 characters)`);
  });

  it('names a long unknown id in a 404 by its start and its length', () => {
    const message = DomainError.notFound('email', `email_${'x'.repeat(20_000)}`).message;
    expect(message).toBe(`No email with id 'email_${'x'.repeat(MESSAGE_QUOTE_MAX_LENGTH - 6)}…' (20006 characters) exists.`);
  });

  it('never cuts between the two halves of a surrogate pair: an emoji across the cap is left out whole', () => {
    const before = 'a'.repeat(MESSAGE_QUOTE_MAX_LENGTH - 1);
    const value = `${before}😀${'b'.repeat(100)}`;
    const quoted = quotedForMessage(value);
    expect(quoted).toBe(`'${before}…' (${value.length} characters)`);
    expect(quoted).not.toMatch(LONE_SURROGATE);
    expect(escapedForMessage(value)).not.toMatch(LONE_SURROGATE);
    expect(excerptForMessage(`${'n'.repeat(23)}😀😀`, 24)).toBe(`${'n'.repeat(23)}…`);
    expect(excerptForMessage(`${'n'.repeat(22)}😀😀`, 24)).toBe(`${'n'.repeat(22)}😀…`);
  });
});
