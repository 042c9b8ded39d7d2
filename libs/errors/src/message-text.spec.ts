import { DomainError } from './domain-error';
import { escapedForMessage, quotedForMessage } from './message-text';

describe('message text', () => {
  it('quotes a value as written when it is safe, and JSON-escaped when it holds control characters or line separators', () => {
    expect(quotedForMessage('a@x.com')).toBe("'a@x.com'");
    expect(quotedForMessage('a\r\nb')).toBe('"a\\r\\nb"');
    expect(quotedForMessage('a\u0085b\u2028')).toBe('"a\\u0085b\\u2028"');
    expect(escapedForMessage('x\u007f')).toBe('"x\\u007f"');
  });

  it('names an unknown id safely in a 404', () => {
    expect(DomainError.notFound('email', 'email_a\r\nb').message).toBe('No email with id "email_a\\r\\nb" exists.');
    expect(DomainError.notFound('email', 'email_1').message).toBe("No email with id 'email_1' exists.");
  });
});
