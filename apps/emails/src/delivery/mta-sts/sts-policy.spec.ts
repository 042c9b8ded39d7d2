import { MAX_POLICY_AGE_SECONDS, mxMatchesPolicy, parseStsPolicy } from './sts-policy';

describe(parseStsPolicy.name, () => {
  it('reads the RFC 8461 example, CRLF or LF line ends alike', () => {
    const lines = ['version: STSv1', 'mode: enforce', 'mx: mail.example.com', 'mx: *.example.net', 'mx: backupmx.example.com', 'max_age: 604800'];
    const expected = { mode: 'enforce', mx: ['mail.example.com', '*.example.net', 'backupmx.example.com'], maxAgeSeconds: 604800 };
    expect(parseStsPolicy(lines.join('\r\n') + '\r\n')).toEqual(expected);
    expect(parseStsPolicy(lines.join('\n'))).toEqual(expected);
  });

  it('lower-cases patterns, drops their trailing dot, ignores unknown keys, and keeps the first of a repeated key', () => {
    const text = 'version: STSv1\nmode: testing\nmode: enforce\nmx: MX.Example.COM.\nextension: yes\nmax_age: 86400\nmax_age: 1\n';
    expect(parseStsPolicy(text)).toEqual({ mode: 'testing', mx: ['mx.example.com'], maxAgeSeconds: 86400 });
  });

  it('takes a none policy without mx', () => {
    expect(parseStsPolicy('version: STSv1\nmode: none\nmax_age: 86400\n')).toEqual({ mode: 'none', mx: [], maxAgeSeconds: 86400 });
  });

  it.each([
    ['no version', 'mode: enforce\nmx: mx.example.com\nmax_age: 86400'],
    ['another version', 'version: STSv2\nmode: enforce\nmx: mx.example.com\nmax_age: 86400'],
    ['an unknown mode', 'version: STSv1\nmode: strict\nmx: mx.example.com\nmax_age: 86400'],
    ['no max_age', 'version: STSv1\nmode: enforce\nmx: mx.example.com'],
    ['a max_age that is no number', 'version: STSv1\nmode: enforce\nmx: mx.example.com\nmax_age: 1d'],
    ['a max_age past a year', `version: STSv1\nmode: enforce\nmx: mx.example.com\nmax_age: ${MAX_POLICY_AGE_SECONDS + 1}`],
    ['enforce without mx', 'version: STSv1\nmode: enforce\nmax_age: 86400'],
    ['a wildcard that is not the leftmost label', 'version: STSv1\nmode: enforce\nmx: mx.*.example.com\nmax_age: 86400'],
    ['a bare wildcard', 'version: STSv1\nmode: enforce\nmx: *\nmax_age: 86400'],
    ['a line that is no key: value', 'version: STSv1\nmode: enforce\nmx: mx.example.com\nmax_age: 86400\n<html>'],
    ['an HTML page', '<!doctype html><title>Not found</title>'],
  ])('states no policy with %s', (_, text) => {
    expect(parseStsPolicy(text)).toBeNull();
  });

  it('takes max_age up to a year exactly', () => {
    expect(parseStsPolicy(`version: STSv1\nmode: enforce\nmx: mx.example.com\nmax_age: ${MAX_POLICY_AGE_SECONDS}`)?.maxAgeSeconds).toBe(MAX_POLICY_AGE_SECONDS);
  });
});

describe(mxMatchesPolicy.name, () => {
  const patterns = ['mail.example.com', '*.example.net'];

  it('matches a host named exactly, whatever its case and a trailing dot', () => {
    expect(mxMatchesPolicy('mail.example.com', patterns)).toBe(true);
    expect(mxMatchesPolicy('MAIL.Example.com.', patterns)).toBe(true);
    expect(mxMatchesPolicy('mail2.example.com', patterns)).toBe(false);
    expect(mxMatchesPolicy('example.com', patterns)).toBe(false);
  });

  it('lets a wildcard stand for exactly one leftmost label', () => {
    expect(mxMatchesPolicy('mx1.example.net', patterns)).toBe(true);
    expect(mxMatchesPolicy('example.net', patterns)).toBe(false);
    expect(mxMatchesPolicy('a.mx1.example.net', patterns)).toBe(false);
    expect(mxMatchesPolicy('mx1.badexample.net', patterns)).toBe(false);
  });

  it('matches nothing against no patterns', () => {
    expect(mxMatchesPolicy('mail.example.com', [])).toBe(false);
  });
});
