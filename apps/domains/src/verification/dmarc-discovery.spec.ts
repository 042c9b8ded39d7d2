import { discoverDmarc, organizationalDomainOf } from './dmarc-discovery';
import type { LookupResult } from './verification-rules';

const txtOf = (records: Record<string, string[] | 'timeout' | 'loop'>) => async (host: string): Promise<LookupResult> => {
  const found = records[host];
  if (found === 'timeout') return { kind: 'error', error: 'timeout' };
  if (found === 'loop') return { kind: 'unreachable', problem: `the CNAME chain makes a loop: ${host} → x.test → ${host}` };
  return found ? { kind: 'found', values: found } : { kind: 'missing' };
};

describe(discoverDmarc.name, () => {
  it('takes a CNAME loop at _dmarc as the problem, and, as receivers, does not fall back to the organizational domain over it', async () => {
    expect(await discoverDmarc('mail.example.com', txtOf({ '_dmarc.mail.example.com': 'loop', '_dmarc.example.com': ['v=DMARC1; p=reject'] }))).toEqual({
      result: 'fail',
      problem: expect.stringContaining('loop: _dmarc.mail.example.com → x.test'),
    });
    expect(await discoverDmarc('mail.example.com', txtOf({ '_dmarc.example.com': 'loop' }))).toEqual({
      result: 'fail',
      problem: expect.stringMatching(/^no DMARC record at _dmarc.mail.example.com, and the one receivers use instead, at _dmarc.example.com .*loop: _dmarc.example.com → x.test/),
    });
  });

  it('finds the organizational domain by the Public Suffix List, private suffixes included', () => {
    expect(organizationalDomainOf('mail.example.com')).toBe('example.com');
    expect(organizationalDomainOf('a.b.example.co.uk')).toBe('example.co.uk');
    expect(organizationalDomainOf('news.someone.github.io')).toBe('someone.github.io');
    expect(organizationalDomainOf('example.com')).toBeNull();
  });

  it("uses the organizational domain's record only when the name has none (RFC 7489 §6.6.3)", async () => {
    expect(await discoverDmarc('mail.example.com', txtOf({ '_dmarc.example.com': ['v=DMARC1; p=reject'] }))).toEqual({ result: 'pass' });
    expect(await discoverDmarc('mail.example.com', txtOf({ '_dmarc.mail.example.com': ['not dmarc'], '_dmarc.example.com': ['v=DMARC1; p=reject'] }))).toEqual({
      result: 'pass',
    });
    // A record of its own, even one without a policy, ends discovery.
    expect(await discoverDmarc('mail.example.com', txtOf({ '_dmarc.mail.example.com': ['v=DMARC1'], '_dmarc.example.com': ['v=DMARC1; p=reject'] }))).toMatchObject({
      result: 'fail',
      problem: expect.stringContaining('has no p= tag'),
    });
    expect(await discoverDmarc('example.com', txtOf({}))).toEqual({ result: 'fail' });
  });

  it("is a plain fail when neither has a record, says why the organizational domain's does not count, and reports where a lookup failed", async () => {
    expect(await discoverDmarc('mail.example.com', txtOf({}))).toEqual({ result: 'fail' });
    // A record whose first tag is not v=DMARC1 is none to receivers, who go on to the organizational domain; with none
    // there either, the answer says why the name's own does not count.
    expect(await discoverDmarc('mail.example.com', txtOf({ '_dmarc.mail.example.com': ['p=none; v=DMARC1'] }))).toMatchObject({
      result: 'fail',
      problem: expect.stringContaining('not as its first tag'),
    });
    expect(await discoverDmarc('mail.example.com', txtOf({ '_dmarc.mail.example.com': ['p=none; v=DMARC1'], '_dmarc.example.com': ['v=DMARC1; p=reject'] }))).toEqual({
      result: 'pass',
    });
    expect(await discoverDmarc('mail.example.com', txtOf({ '_dmarc.example.com': ['v=DMARC1; p=bogus'] }))).toMatchObject({
      result: 'fail',
      problem: expect.stringMatching(/^no DMARC record at _dmarc\.mail\.example\.com, and the one .* at _dmarc\.example\.com .* p=bogus is not none, quarantine or reject/),
    });
    expect(await discoverDmarc('mail.example.com', txtOf({ '_dmarc.example.com': 'timeout' }))).toEqual({ result: 'error', error: 'timeout', host: '_dmarc.example.com' });
    expect(await discoverDmarc('mail.example.com', txtOf({ '_dmarc.mail.example.com': 'timeout' }))).toEqual({ result: 'error', error: 'timeout' });
  });
});
