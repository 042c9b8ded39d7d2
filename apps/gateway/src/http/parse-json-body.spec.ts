import { parseJsonBody } from './parse-json-body';

const problemOf = (body: Buffer | string) => {
  try {
    parseJsonBody(Buffer.from(body));
    return null;
  } catch (error) {
    return { code: (error as { code?: string }).code, message: (error as Error).message };
  }
};

describe(parseJsonBody.name, () => {
  it('parses JSON', () => {
    expect(parseJsonBody(Buffer.from('{"a":[1,{"b":"c"}],"constructor":"plain"}'))).toEqual({ a: [1, { b: 'c' }], constructor: 'plain' });
  });

  it("says what is wrong with malformed JSON, in the parser's words", () => {
    expect(problemOf('{"name": "x",')).toEqual({ code: 'invalid_json', message: 'The body is not valid JSON: Expected double-quoted property name in JSON at position 13.' });
    expect(problemOf('  ')).toEqual({ code: 'invalid_json', message: 'The body is not valid JSON: Unexpected end of JSON input.' });
  });

  it('decodes bytes as UTF-8, dropping a byte order mark, and refuses bytes that are not UTF-8', () => {
    expect(parseJsonBody(Buffer.from('\ufeff{"name":"café"}'))).toEqual({ name: 'café' });
    expect(problemOf(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]))).toEqual({
      code: 'invalid_json',
      message: 'The body is not valid JSON: it is not valid UTF-8 (RFC 8259 §8.1); send it UTF-8 encoded.',
    });
  });

  it.each([
    ['__proto__', '{"a":1,"__proto__":{"admin":true}}'],
    ['__proto__ spelt with escapes', '{"a":1,"\\u005f_proto__":{"admin":true}}'],
  ])('refuses %s, naming it', (_what, body) => {
    expect(problemOf(body)?.message).toMatch(/^The body is refused: it has the key "__proto__"/);
  });

  it('refuses a constructor holding prototype, naming it', () => {
    expect(problemOf('{"constructor":{"prototype":{"admin":true}}}')?.message).toMatch(/^The body is refused: it has the key "constructor" holding "prototype"/);
  });
});
