import { checkCnameChain, MAX_CNAME_HOPS } from './cname-chain';
import type { LookupResult } from './verification-rules';

const TARGET = 'track.mailroom.test';

const cnames = (records: Record<string, string | 'servfail'>) => async (host: string): Promise<LookupResult> => {
  const found = records[host];
  if (found === 'servfail') return { kind: 'error', error: 'servfail' };
  return found ? { kind: 'found', values: [found] } : { kind: 'missing' };
};

describe(checkCnameChain.name, () => {
  it('passes on the first hop or at the end of a chain, case and trailing dot aside', async () => {
    expect(await checkCnameChain('links.acme.test', TARGET, cnames({ 'links.acme.test': 'TRACK.mailroom.test.' }))).toEqual({ result: 'pass' });
    const chain = cnames({ 'links.acme.test': 'edge.acme.test', 'edge.acme.test': 'x.cdn.example.net', 'x.cdn.example.net': TARGET });
    expect(await checkCnameChain('links.acme.test', TARGET, chain)).toEqual({ result: 'pass' });
  });

  it('is a plain fail with no CNAME, and names where a chain points or ends', async () => {
    expect(await checkCnameChain('links.acme.test', TARGET, cnames({}))).toEqual({ result: 'fail' });
    expect(await checkCnameChain('links.acme.test', TARGET, cnames({ 'links.acme.test': 'other.example' }))).toEqual({
      result: 'fail',
      problem: `the CNAME points to other.example, not ${TARGET}`,
    });
    expect(await checkCnameChain('links.acme.test', TARGET, cnames({ 'links.acme.test': 'a.example', 'a.example': 'b.example' }))).toEqual({
      result: 'fail',
      problem: `the CNAME chain links.acme.test → a.example → b.example ends at b.example, not ${TARGET}`,
    });
  });

  it('detects a loop, and gives up after the hop limit', async () => {
    expect(await checkCnameChain('links.acme.test', TARGET, cnames({ 'links.acme.test': 'a.example', 'a.example': 'links.acme.test' }))).toEqual({
      result: 'fail',
      problem: 'the CNAME chain makes a loop: links.acme.test → a.example → links.acme.test',
    });
    const long = Object.fromEntries(Array.from({ length: MAX_CNAME_HOPS + 1 }, (_, index) => [`h${index}.example`, index === MAX_CNAME_HOPS ? TARGET : `h${index + 1}.example`]));
    expect(await checkCnameChain('h0.example', TARGET, cnames(long))).toMatchObject({ result: 'fail', problem: expect.stringContaining(`more than ${MAX_CNAME_HOPS} hops`) });
    // The same chain one hop shorter is within the limit.
    expect(await checkCnameChain('h1.example', TARGET, cnames(long))).toEqual({ result: 'pass' });
  });

  it('reports a failed lookup as a DNS error, naming the hop when it is not the first', async () => {
    expect(await checkCnameChain('links.acme.test', TARGET, cnames({ 'links.acme.test': 'servfail' }))).toEqual({ result: 'error', error: 'servfail' });
    expect(await checkCnameChain('links.acme.test', TARGET, cnames({ 'links.acme.test': 'a.example', 'a.example': 'servfail' }))).toEqual({
      result: 'error',
      error: 'servfail (at a.example)',
      host: 'a.example',
    });
  });
});
