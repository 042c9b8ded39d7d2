import { MAX_CNAME_HOPS } from './cname-chain';
import { checkDkim, DkimLookups } from './dkim-check';
import type { LookupResult } from './verification-rules';

const SELECTOR = 'mr202611._domainkey.acme.test';
const TARGET = 'mr202611-abc.dkim.mailroom.test';
const KEY = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAour';
const OTHER_KEY = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtheirs';

/**
 * A zone of CNAMEs and TXTs as a resolver sees it: a CNAME query answers one hop,
 * while a TXT query is answered at the end of the chain (the resolver chases it);
 * a name may also fail, or the TXT answer may be given outright (what a resolver
 * says about a chain it could not follow).
 */
function zone(cnames: Record<string, string | 'servfail'>, txts: Record<string, string[] | 'servfail'>): DkimLookups {
  const answer = <T>(found: T | 'servfail' | undefined, values: (found: T) => string[]): LookupResult => {
    if (found === 'servfail') return { kind: 'error', error: 'servfail' };
    return found === undefined ? { kind: 'missing' } : { kind: 'found', values: values(found) };
  };
  return {
    cname: async (host) => answer(cnames[host], (target) => [target]),
    txt: async (host) => answer(txts[host], (values) => values),
  };
}

const check = (cnames: Record<string, string | 'servfail'>, txts: Record<string, string[] | 'servfail'> = {}) => checkDkim(SELECTOR, TARGET, KEY, zone(cnames, txts));

describe(checkDkim.name, () => {
  it('passes with the CNAME we issued, case and trailing dot aside', async () => {
    expect(await check({ [SELECTOR]: `${TARGET.toUpperCase()}.` })).toEqual({ result: 'pass' });
  });

  it('follows a chain of the owner’s CNAMEs to ours, whether or not the key is reachable from here', async () => {
    // The DKIM zone may be hosted elsewhere and not loaded yet: the CNAME chain is what was asked for, as with one hop.
    expect(await check({ [SELECTOR]: 'dkim.acme.test', 'dkim.acme.test': 'x.provider.net', 'x.provider.net': TARGET }, { [SELECTOR]: 'servfail' })).toEqual({ result: 'pass' });
    expect(await check({ [SELECTOR]: 'x.provider.net', 'x.provider.net': TARGET })).toEqual({ result: 'pass' });
  });

  it('names a chain that ends elsewhere, loops or is too long, as the tracking check does', async () => {
    expect(await check({ [SELECTOR]: 'a.acme.test', 'a.acme.test': 'b.provider.net' })).toEqual({
      result: 'fail',
      problem: `the CNAME chain ${SELECTOR} → a.acme.test → b.provider.net ends at b.provider.net, not ${TARGET}`,
    });
    // A resolver answers SERVFAIL for the TXT behind a loop: that is the loop's doing, not a DNS failure to wait out.
    expect(await check({ [SELECTOR]: 'a.acme.test', 'a.acme.test': SELECTOR }, { [SELECTOR]: 'servfail' })).toEqual({
      result: 'fail',
      problem: `the CNAME chain makes a loop: ${SELECTOR} → a.acme.test → ${SELECTOR}`,
    });
    const long = Object.fromEntries(Array.from({ length: MAX_CNAME_HOPS + 1 }, (_, index) => [index === 0 ? SELECTOR : `h${index}.acme.test`, index === MAX_CNAME_HOPS ? TARGET : `h${index + 1}.acme.test`]));
    expect(await check(long, { [SELECTOR]: 'servfail' })).toMatchObject({ result: 'fail', problem: expect.stringContaining(`more than ${MAX_CNAME_HOPS} hops`) });
  });

  it('passes when the TXT a verifier reaches carries our key, and only our key', async () => {
    // A DNS host that flattens CNAMEs: no CNAME, the key itself.
    expect(await check({}, { [SELECTOR]: [`v=DKIM1; k=rsa; p=${KEY.slice(0, 20)} ${KEY.slice(20)}`] })).toEqual({ result: 'pass' });
    // A chain longer than we follow that a resolver still followed to the key: a verifier finds it too.
    const long = Object.fromEntries(Array.from({ length: MAX_CNAME_HOPS + 1 }, (_, index) => [index === 0 ? SELECTOR : `h${index}.acme.test`, index === MAX_CNAME_HOPS ? TARGET : `h${index + 1}.acme.test`]));
    expect(await check(long, { [SELECTOR]: [`v=DKIM1; k=rsa; p=${KEY}`] })).toEqual({ result: 'pass' });
    expect(await check({}, { [SELECTOR]: [`v=DKIM1; k=rsa; p=${OTHER_KEY}`] })).toEqual({ result: 'fail' });
  });

  it('does not pass our key beside other TXT records at the selector name: which one a verifier uses is undefined (RFC 6376 §3.6.2.2)', async () => {
    expect(await check({}, { [SELECTOR]: [`v=DKIM1; k=rsa; p=${OTHER_KEY}`, `v=DKIM1; k=rsa; p=${KEY}`] })).toEqual({
      result: 'fail',
      problem: expect.stringContaining(`found 2 TXT records at ${SELECTOR}`),
    });
  });

  it('does not pass our key in a record whose tags keep verifiers from using it for rsa-sha256 mail (RFC 6376 §3.6.1)', async () => {
    for (const [tags, named] of [
      ['v=DKIM2; k=rsa;', 'v=DKIM2'],
      ['k=rsa; v=DKIM1;', 'v=DKIM1'],
      ['v=DKIM1; k=ed25519;', 'k=ed25519'],
      ['v=DKIM1; k=rsa; h=sha1;', 'h=sha1'],
      ['v=DKIM1; k=rsa; s=tlsrpt;', 's=tlsrpt'],
    ]) {
      expect(await check({}, { [SELECTOR]: [`${tags} p=${KEY}`] })).toEqual({ result: 'fail', problem: expect.stringContaining(named) });
    }
    expect(await check({}, { [SELECTOR]: [`v=DKIM1; k=rsa; h=sha1:sha256; s=email:*; t=y; p=${KEY}`] })).toEqual({ result: 'pass' });
    expect(await check({}, { [SELECTOR]: [`p=${KEY}`] })).toEqual({ result: 'pass' });
  });

  it('reports a failed lookup as a DNS error, naming the hop when it is not the first, unless the key was reached all the same', async () => {
    expect(await check({ [SELECTOR]: 'servfail' })).toEqual({ result: 'error', error: 'servfail' });
    expect(await check({ [SELECTOR]: 'a.acme.test', 'a.acme.test': 'servfail' })).toEqual({ result: 'error', error: 'servfail (at a.acme.test)', host: 'a.acme.test' });
    // A hop that failed to answer its CNAME query does not matter when the key was reached all the same.
    expect(await check({ [SELECTOR]: 'a.acme.test', 'a.acme.test': 'servfail' }, { [SELECTOR]: [`v=DKIM1; k=rsa; p=${KEY}`] })).toEqual({ result: 'pass' });
    // The chain ended short of ours and the TXT there could not be read: it might still carry the key.
    expect(await check({ [SELECTOR]: 'a.acme.test' }, { [SELECTOR]: 'servfail' })).toEqual({ result: 'error', error: 'servfail' });
  });
});
