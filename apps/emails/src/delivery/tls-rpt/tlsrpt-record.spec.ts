import { reportDestinations } from './tlsrpt-record';

/** Records as Node's resolveTxt gives them: each a list of its character-strings. */
const txt = (...records: string[]) => records.map((record) => [record]);

describe(reportDestinations.name, () => {
  it('reads the rua of a TLSRPTv1 record: mailto: and https: URIs, comma-separated, spaces around the commas allowed', () => {
    expect(reportDestinations(txt('v=TLSRPTv1; rua=mailto:tlsrpt@example.com'))).toEqual({ mailto: ['tlsrpt@example.com'], https: [] });
    expect(reportDestinations(txt('v=TLSRPTv1;rua=mailto:a@example.com, https://reports.example.com/v1/tlsrpt,mailto:b%2Bx@example.net;'))).toEqual({
      mailto: ['a@example.com', 'b+x@example.net'],
      https: ['https://reports.example.com/v1/tlsrpt'],
    });
  });

  it('joins a record split into several character-strings, and ignores extension fields and other schemes', () => {
    expect(reportDestinations([['v=TLSRPTv1; rua=https://r.example.com/', 'a; ext=1']])).toEqual({ mailto: [], https: ['https://r.example.com/a'] });
    expect(reportDestinations(txt('v=TLSRPTv1; rua=http://plain.example.com/,mailto:ok@example.com'))).toEqual({ mailto: ['ok@example.com'], https: [] });
  });

  it('asks for nothing with a version other than TLSRPTv1, no rua, only unusable URIs, or junk fields', () => {
    expect(reportDestinations(txt('v=TLSRPTv2; rua=mailto:a@example.com'))).toBeNull();
    expect(reportDestinations(txt('rua=mailto:a@example.com; v=TLSRPTv1'))).toBeNull();
    expect(reportDestinations(txt('v=TLSRPTv1;'))).toBeNull();
    expect(reportDestinations(txt('v=TLSRPTv1; rua=ftp://x.example.com/'))).toBeNull();
    expect(reportDestinations(txt('v=TLSRPTv1; rua=mailto:a@example.com; junk without equals'))).toBeNull();
    expect(reportDestinations(txt('hello world'))).toBeNull();
    expect(reportDestinations([])).toBeNull();
  });

  it('discards records not beginning v=TLSRPTv1, and asks for nothing unless exactly one is left (RFC 8460 §3)', () => {
    expect(reportDestinations(txt('v=spf1 -all', 'v=TLSRPTv1; rua=mailto:a@example.com'))).toEqual({ mailto: ['a@example.com'], https: [] });
    expect(reportDestinations(txt('v=TLSRPTv1; rua=mailto:a@example.com', 'v=TLSRPTv1; rua=mailto:b@example.com'))).toBeNull();
  });
});
