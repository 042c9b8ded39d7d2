import { txtBehindCnames } from './txt-behind-cnames';
import { LookupResult } from './verification-rules';

/** A resolver over fixed CNAMEs whose TXT lookups answer `txt`. */
const lookups = (cnames: Record<string, string>, txt: LookupResult) => ({
  txt: async () => txt,
  cname: async (host: string): Promise<LookupResult> => (cnames[host] ? { kind: 'found', values: [cnames[host]] } : { kind: 'missing' }),
});
const servfail: LookupResult = { kind: 'error', error: 'servfail' };

describe('txtBehindCnames', () => {
  it('passes an answer through', async () => {
    expect(await txtBehindCnames('_dmarc.a.test', lookups({}, { kind: 'found', values: ['v=DMARC1; p=none'] }))).toEqual({ kind: 'found', values: ['v=DMARC1; p=none'] });
    expect(await txtBehindCnames('_dmarc.a.test', lookups({}, { kind: 'missing' }))).toEqual({ kind: 'missing' });
  });

  it('names the loop behind a failed lookup', async () => {
    const result = await txtBehindCnames('_dmarc.a.test', lookups({ '_dmarc.a.test': 'x.a.test', 'x.a.test': '_dmarc.a.test' }, servfail));
    expect(result).toEqual({ kind: 'unreachable', problem: expect.stringContaining('makes a loop: _dmarc.a.test → x.a.test → _dmarc.a.test') });
  });

  it('names a chain longer than the hop limit', async () => {
    const cnames = Object.fromEntries(Array.from({ length: 12 }, (_, hop) => [`h${hop}.a.test`, `h${hop + 1}.a.test`]));
    expect(await txtBehindCnames('h0.a.test', lookups(cnames, servfail))).toEqual({ kind: 'unreachable', problem: expect.stringContaining('takes more than 8 hops') });
  });

  it('keeps a failure that no broken chain explains a DNS failure', async () => {
    expect(await txtBehindCnames('_dmarc.a.test', lookups({ '_dmarc.a.test': 'x.b.test' }, servfail))).toEqual(servfail);
    expect(await txtBehindCnames('_dmarc.a.test', lookups({}, servfail))).toEqual(servfail);
  });
});
