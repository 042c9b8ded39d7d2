import { checkSpf, MAX_SPF_LOOKUPS } from './spf-evaluator';
import type { LookupResult } from './verification-rules';

const OURS = 'spf.mailroom.test';

/** A TXT lookup over a fixed zone that records what was asked; a name maps to its TXT values or to a lookup failure. */
function zone(records: Record<string, string[] | 'servfail' | 'loop'>) {
  const asked: string[] = [];
  const txt = async (host: string): Promise<LookupResult> => {
    asked.push(host);
    const found = records[host];
    if (found === 'servfail') return { kind: 'error', error: 'servfail' };
    if (found === 'loop') return { kind: 'unreachable', problem: `the CNAME chain makes a loop: ${host} → x.test → ${host}` };
    return found ? { kind: 'found', values: found } : { kind: 'missing' };
  };
  return { txt, asked };
}

const check = (records: Record<string, string[] | 'servfail' | 'loop'>) => checkSpf('example.com', OURS, zone(records).txt);

describe('SPF evaluation (RFC 7208)', () => {
  it('takes a name whose CNAMEs loop, its own or an included one, as a problem naming the hops', async () => {
    expect(await check({ 'example.com': 'loop' })).toEqual({ result: 'fail', problem: expect.stringContaining('loop: example.com → x.test → example.com') });
    expect(await check({ 'example.com': ['v=spf1 include:_spf.example.com ~all'], '_spf.example.com': 'loop' })).toEqual({
      result: 'fail',
      problem: expect.stringMatching(/^include:_spf.example.com leads to _spf.example.com, where the CNAME chain makes a loop: _spf.example.com → x.test/),
    });
  });

  it('stops at an unknown mechanism anywhere in a record it reads, and reads past an unknown modifier', async () => {
    expect(await check({ 'example.com': [`v=spf1 include:${OURS} ipv4:192.0.2.1 ~all`] })).toEqual({ result: 'fail', problem: expect.stringContaining("unknown mechanism 'ipv4:192.0.2.1'") });
    expect(await check({ 'example.com': [`v=spf1 include:_spf.example.com include:${OURS} ~all`], '_spf.example.com': ['v=spf1 bogus -all'] })).toEqual({
      result: 'fail',
      problem: expect.stringMatching(/^in the SPF record of _spf.example.com .* there is an unknown mechanism 'bogus'/),
    });
    expect(await check({ 'example.com': [`v=spf1 include:${OURS} x-note=1 ~all`] })).toEqual({ result: 'pass' });
  });

  it('stops at an ip4 or ip6 term that holds no address or range, an all with an argument, an a, mx, ptr or exists with an empty domain or too long a prefix', async () => {
    for (const term of ['ip4:192.0.2', 'ip4:192.0.2.0/33', 'ip4', 'ip6:2001:db8::/129', 'ip6:192.0.2.1', 'all:example.com', 'exists', 'exists:', 'a:', 'mx:/24', 'a/33', 'mx:mail.example.com//129', 'ptr:']) {
      expect(await check({ 'example.com': [`v=spf1 ${term} include:${OURS} ~all`] })).toEqual({ result: 'fail', problem: expect.stringContaining(`'${term}'`) });
    }
    expect(await check({ 'example.com': [`v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 +ip4:198.51.100.7 a mx/24 a:mail.example.com/24//64 a:%{l/}.example.com mx//64 ptr exists:%{i}.x.example.com include:${OURS} -all`] })).toEqual({
      result: 'pass',
    });
  });

  it('passes with our include in the record itself, in one it includes, or behind redirect=', async () => {
    expect(await check({ 'example.com': [`v=spf1 include:${OURS} ~all`] })).toEqual({ result: 'pass' });
    expect(await check({ 'example.com': ['v=spf1 include:_spf.example.com -all'], '_spf.example.com': [`v=spf1 +include:${OURS}. ~all`] })).toEqual({ result: 'pass' });
    expect(await check({ 'example.com': ['v=spf1 ip4:192.0.2.1 redirect=_spf.example.com'], '_spf.example.com': [`v=spf1 include:${OURS} -all`] })).toEqual({ result: 'pass' });
  });

  it('is a plain fail (a record to publish) with no TXT or no SPF record, and a DNS error when the lookup fails', async () => {
    expect(await check({})).toEqual({ result: 'fail' });
    expect(await check({ 'example.com': ['google-site-verification=x'] })).toEqual({ result: 'fail' });
    expect(await check({ 'example.com': 'servfail' })).toEqual({ result: 'error', error: 'servfail' });
    expect(await check({ 'example.com': ['v=spf1 include:_spf.example.com -all'], '_spf.example.com': 'servfail' })).toEqual({
      result: 'error',
      error: 'servfail',
      host: '_spf.example.com',
    });
  });

  it('says why the include does not take effect: absent, after all, a non-pass qualifier on it or on the include that leads to it', async () => {
    const problemOf = async (records: Record<string, string[]>) => {
      const outcome = await check(records);
      return outcome.result === 'fail' ? outcome.problem : `unexpected ${outcome.result}`;
    };
    expect(await problemOf({ 'example.com': ['v=spf1 mx -all'] })).toContain(`does not contain include:${OURS}`);
    expect(await problemOf({ 'example.com': [`v=spf1 -all include:${OURS}`] })).toContain('comes after -all');
    expect(await problemOf({ 'example.com': [`v=spf1 ?include:${OURS} -all`] })).toContain('qualifier ?');
    expect(await problemOf({ 'example.com': ['v=spf1 -include:_spf.example.com ~all'], '_spf.example.com': [`v=spf1 include:${OURS} -all`] })).toContain(
      '-include:_spf.example.com has the qualifier -',
    );
    expect(await problemOf({ 'example.com': ['v=spf1 include:_spf.example.com ~all'], '_spf.example.com': [`v=spf1 -all include:${OURS}`] })).toContain(
      'in the SPF record of _spf.example.com (reached by example.com → _spf.example.com), include:spf.mailroom.test comes after -all',
    );
  });

  it('passes a redirect= straight to ours: our record then stands for the domain, and it passes our mail (§6.1)', async () => {
    const ours = { [OURS]: ['v=spf1 ip4:192.0.2.0/24 -all'] };
    expect(await check({ 'example.com': [`v=spf1 redirect=${OURS.toUpperCase()}.`], ...ours })).toEqual({ result: 'pass' });
    expect(await check({ 'example.com': ['v=spf1 include:_spf.example.com -all'], '_spf.example.com': [`v=spf1 redirect=${OURS}`], ...ours })).toEqual({ result: 'pass' });
    expect(await check({ 'example.com': [`v=spf1 -all redirect=${OURS}`], ...ours })).toMatchObject({ result: 'fail' });
  });

  it('ignores redirect= in a record with an all mechanism (§6.1), and refuses two redirect= or two exp= modifiers (§6)', async () => {
    const target = { '_spf.example.com': [`v=spf1 include:${OURS} -all`] };
    expect(await check({ 'example.com': ['v=spf1 ~all redirect=_spf.example.com'], ...target })).toMatchObject({ result: 'fail', problem: expect.stringContaining('does not contain') });
    expect(await check({ 'example.com': ['v=spf1 redirect=_spf.example.com redirect=_spf.example.com'], ...target })).toMatchObject({
      result: 'fail',
      problem: expect.stringContaining('2 redirect= modifiers'),
    });
    expect(await check({ 'example.com': [`v=spf1 include:${OURS} exp=a.example.com EXP=b.example.com ~all`] })).toMatchObject({
      result: 'fail',
      problem: expect.stringContaining('2 exp= modifiers'),
    });
  });

  it('counts include, a, mx, ptr, exists and redirect= up to our include, and stops past the limit', async () => {
    const lookupTerms = (count: number) => Array.from({ length: count }, (_, index) => ['a', 'mx', 'ptr', `exists:%{i}.x.example.com`][index % 4]).join(' ');
    // Ours is a lookup too: MAX_SPF_LOOKUPS - 1 others before it are fine, one more is not.
    expect(await check({ 'example.com': [`v=spf1 ip4:192.0.2.1 ${lookupTerms(MAX_SPF_LOOKUPS - 1)} include:${OURS} ~all`] })).toEqual({ result: 'pass' });
    expect(await check({ 'example.com': [`v=spf1 ${lookupTerms(MAX_SPF_LOOKUPS)} include:${OURS} ~all`] })).toMatchObject({
      result: 'fail',
      problem: expect.stringContaining(`SPF record needs more than ${MAX_SPF_LOOKUPS} DNS lookups`),
    });
    // Terms after ours are never evaluated for our mail, so they do not count.
    expect(await check({ 'example.com': [`v=spf1 include:${OURS} ${lookupTerms(20)} ~all`] })).toEqual({ result: 'pass' });
  });

  it('stops a chain of includes at the limit without asking more names than it may', async () => {
    const chain = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`s${index}.example.com`, [`v=spf1 include:s${index + 1}.example.com -all`]]));
    const { txt, asked } = zone({ 'example.com': ['v=spf1 include:s0.example.com -all'], ...chain });
    expect(await checkSpf('example.com', OURS, txt)).toMatchObject({ result: 'fail', problem: expect.stringContaining('more than 10 DNS lookups') });
    expect(asked.length).toBe(MAX_SPF_LOOKUPS + 1);
  });

  it('names a loop, and treats an included name with no SPF record or two as a permanent error', async () => {
    expect(await check({ 'example.com': ['v=spf1 include:_a.example.com -all'], '_a.example.com': ['v=spf1 redirect=example.com'] })).toMatchObject({
      result: 'fail',
      problem: expect.stringContaining('loop: example.com → _a.example.com → example.com'),
    });
    expect(await check({ 'example.com': [`v=spf1 include:_a.example.com include:${OURS} -all`] })).toMatchObject({
      result: 'fail',
      problem: expect.stringContaining('include:_a.example.com leads to _a.example.com, which has no SPF record'),
    });
    expect(await check({ 'example.com': [`v=spf1 include:_a.example.com include:${OURS} -all`], '_a.example.com': ['v=spf1 -all', 'v=spf1 a -all'] })).toMatchObject({
      result: 'fail',
      problem: expect.stringContaining('_a.example.com has 2 SPF records'),
    });
    expect(await check({ 'example.com': [`v=spf1 include:${OURS} ~all`, 'v=spf1 -all'] })).toMatchObject({ result: 'fail', problem: expect.stringContaining('found 2 SPF records') });
  });

  it('stops at the first include that finds nothing, so it never meets the two void lookups §4.6.4 allows', async () => {
    const { txt, asked } = zone({ 'example.com': [`v=spf1 include:_a.example.com include:_b.example.com redirect=_c.example.com`] });
    expect(await checkSpf('example.com', OURS, txt)).toMatchObject({ result: 'fail', problem: expect.stringContaining('_a.example.com, which has no SPF record') });
    expect(asked).toEqual(['example.com', '_a.example.com']);
  });

  it('treats an include or redirect= that names no domain as the syntax error it is (a permanent error)', async () => {
    expect(await check({ 'example.com': [`v=spf1 include: include:${OURS} -all`] })).toMatchObject({ result: 'fail', problem: expect.stringContaining('include: names no domain') });
    expect(await check({ 'example.com': [`v=spf1 include include:${OURS} -all`] })).toMatchObject({ result: 'fail', problem: expect.stringContaining('include names no domain') });
    expect(await check({ 'example.com': ['v=spf1 redirect='] })).toMatchObject({ result: 'fail', problem: expect.stringContaining('redirect= names no domain') });
  });

  it('visits a name included twice on separate branches (not a loop), and skips includes with macros', async () => {
    const records = {
      'example.com': ['v=spf1 include:_a.example.com include:_b.example.com include:%{ir}.example.com include:_c.example.com -all'],
      '_a.example.com': ['v=spf1 include:_shared.example.com -all'],
      '_b.example.com': ['v=spf1 include:_shared.example.com -all'],
      '_shared.example.com': ['v=spf1 ip4:192.0.2.0/24 -all'],
      '_c.example.com': [`v=spf1 include:${OURS} -all`],
    };
    expect(await check(records)).toEqual({ result: 'pass' });
  });

  it('does not look up a redirect= with a macro: like an include with one, it is taken not to lead to ours', async () => {
    const { txt, asked } = zone({ 'example.com': ['v=spf1 redirect=_spf.%{d}'] });
    expect(await checkSpf('example.com', OURS, txt)).toMatchObject({ result: 'fail', problem: expect.stringContaining(`does not contain include:${OURS}`) });
    expect(asked).toEqual(['example.com']);
  });
});
