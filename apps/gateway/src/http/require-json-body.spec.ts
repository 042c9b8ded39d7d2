import { DomainError, MESSAGE_QUOTE_MAX_LENGTH } from '@mailroom/errors';
import { assertJsonBody } from './require-json-body';

function problemOf(headers: Record<string, string>): string | null {
  try {
    assertJsonBody({ headers: Object.assign({ 'content-length': '2' }, headers) });
    return null;
  } catch (error) {
    return (error as DomainError).message;
  }
}

describe(assertJsonBody.name, () => {
  it('quotes the media type, encoding and charset it refuses as written when short and safe', () => {
    expect(problemOf({ 'content-type': 'text/plain' })).toBe("Content-Type must be application/json, got 'text/plain'.");
    expect(problemOf({ 'content-type': '' })).toBe("Content-Type must be application/json, got 'none'.");
    expect(problemOf({ 'content-type': 'application/json', 'content-encoding': 'gzip' })).toBe("Content-Encoding 'gzip' is not supported; send the body uncompressed.");
  });

  it('refuses a transfer coding other than chunked, which nothing here decodes, and takes chunked in any case', () => {
    expect(problemOf({ 'content-type': 'application/json', 'transfer-encoding': 'gzip, chunked' })).toBe("Transfer-Encoding 'gzip, chunked' is not supported; send the body chunked or with a Content-Length.");
    expect(problemOf({ 'content-type': 'application/json', 'transfer-encoding': 'Chunked' })).toBeNull();
  });

  it('quotes a long or tab-holding header value by its start and length, JSON-escaped, never whole or raw', () => {
    const type = `text/${'x'.repeat(10_000)}`;
    expect(problemOf({ 'content-type': type })).toBe(`Content-Type must be application/json, got '${type.slice(0, MESSAGE_QUOTE_MAX_LENGTH)}…' (10005 characters).`);
    expect(problemOf({ 'content-type': 'application/json', 'content-encoding': 'gz\tip' })).toBe('Content-Encoding "gz\\tip" is not supported; send the body uncompressed.');
    expect(problemOf({ 'content-type': `application/json; charset=${'l'.repeat(5_000)}` })).toBe(
      `Content-Type charset must be utf-8, got '${'l'.repeat(MESSAGE_QUOTE_MAX_LENGTH)}…' (5000 characters); JSON is UTF-8 (RFC 8259 §8.1).`,
    );
  });
});
