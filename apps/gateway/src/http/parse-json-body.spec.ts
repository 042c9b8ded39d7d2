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

  it("escapes the control characters and line separators the parser's words quote from the body", () => {
    // V8 quotes the offending character and a stretch of the body raw: a CR, a NUL or a NEL would reach the client's
    // one-line error display and the logs as they are.
    const message = problemOf('\t\r\n\u0001')!.message;
    expect(message).toBe('The body is not valid JSON: Unexpected token \'\\u0001\', "\\t\\r\\n\\u0001" is not valid JSON.');
    expect(problemOf('[1,\u0085\u2028]')!.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  });

  it("escapes half an emoji where the parser's words cut the body by UTF-16 units", () => {
    // V8 names the offending UTF-16 unit, and cuts its quote of the body after ten of them, between an emoji's halves.
    expect(problemOf('😀')!.message).toBe('The body is not valid JSON: Unexpected token \'\\ud83d\', "😀" is not valid JSON.');
    expect(problemOf(`${'a'.repeat(9)}😀${'b'.repeat(40)}`)!.message).toBe(`The body is not valid JSON: Unexpected token 'a', "${'a'.repeat(9)}\\ud83d"... is not valid JSON.`);
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
