import { CachedStsPolicy, StsPolicyStore } from './mta-sts.repository';
import { PolicyFetch } from './policy-fetch';
import { StsAnnouncement } from './sts-discovery';
import { StsPolicies } from './sts-policies';

const ENFORCE_TEXT = 'version: STSv1\nmode: enforce\nmx: mx.example.com\nmax_age: 86400\n';
const ENFORCE = { mode: 'enforce', mx: ['mx.example.com'], maxAgeSeconds: 86400 };
const CACHED: CachedStsPolicy = { policyId: 'old', mode: 'enforce', mx: ['mx.cached.example.com'], maxAgeSeconds: 604800 };

/** StsPolicies over an in-memory store, a scripted TXT answer and a scripted fetch, with a clock the test moves. */
function subject(options: { announcement: StsAnnouncement; fetched?: PolicyFetch; cached?: CachedStsPolicy }) {
  const rows = new Map<string, CachedStsPolicy>(options.cached ? [['example.com', options.cached]] : []);
  const store: StsPolicyStore = { find: async (domain) => rows.get(domain) ?? null, save: async (domain, policy) => void rows.set(domain, policy) };
  const fetch = jest.fn(async (): Promise<PolicyFetch> => options.fetched ?? { ok: false, reason: 'not scripted' });
  const discover = jest.fn(async () => options.announcement);
  let now = 0;
  const policies = new StsPolicies(store, { discover, fetch }, () => now);
  return { policies, rows, fetch, discover, advance: (ms: number) => (now += ms) };
}

describe(StsPolicies.name, () => {
  it('fetches and caches the policy of a domain seen for the first time, under the id its record announced', async () => {
    const { policies, rows, fetch } = subject({ announcement: { kind: 'policy', id: 'v1' }, fetched: { ok: true, text: ENFORCE_TEXT } });
    expect(await policies.policyFor('example.com')).toEqual(ENFORCE);
    expect(fetch).toHaveBeenCalledWith('example.com');
    expect(rows.get('example.com')).toEqual(Object.assign({ policyId: 'v1' }, ENFORCE));
  });

  it('uses the cached policy without fetching while the record announces its id', async () => {
    const { policies, fetch } = subject({ announcement: { kind: 'policy', id: 'old' }, cached: CACHED });
    expect(await policies.policyFor('example.com')).toEqual(CACHED);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('fetches again, and replaces the cached policy, when the id changed', async () => {
    const { policies, rows } = subject({ announcement: { kind: 'policy', id: 'v2' }, fetched: { ok: true, text: ENFORCE_TEXT }, cached: CACHED });
    expect(await policies.policyFor('example.com')).toEqual(ENFORCE);
    expect(rows.get('example.com')?.policyId).toBe('v2');
  });

  it.each<[string, StsAnnouncement, PolicyFetch | undefined]>([
    ['the record is gone', { kind: 'none' }, undefined],
    ['the record lookup failed', { kind: 'failed', reason: 'ESERVFAIL' }, undefined],
    ['a new policy cannot be fetched', { kind: 'policy', id: 'v2' }, { ok: false, reason: 'HTTP 404' }],
    ['a new policy is invalid', { kind: 'policy', id: 'v2' }, { ok: true, text: '<html>' }],
  ])('keeps the cached policy when %s (RFC 8461 §5.1)', async (_, announcement, fetched) => {
    const { policies, rows } = subject({ announcement, fetched, cached: CACHED });
    expect(await policies.policyFor('example.com')).toEqual(CACHED);
    expect(rows.get('example.com')).toEqual(CACHED);
  });

  it.each<[string, StsAnnouncement, PolicyFetch | undefined]>([
    ['no record', { kind: 'none' }, undefined],
    ['a failed record lookup', { kind: 'failed', reason: 'ETIMEOUT' }, undefined],
    ['a failed fetch', { kind: 'policy', id: 'v1' }, { ok: false, reason: 'ECONNREFUSED' }],
  ])('has no policy, with nothing cached, after %s (fail open on first contact)', async (_, announcement, fetched) => {
    const { policies, rows } = subject({ announcement, fetched });
    expect(await policies.policyFor('example.com')).toBeNull();
    expect(rows.size).toBe(0);
  });

  it('shares one lookup between deliveries at the same time, and reuses the answer for a while only', async () => {
    const { policies, discover, advance } = subject({ announcement: { kind: 'policy', id: 'old' }, cached: CACHED });
    await Promise.all([policies.policyFor('example.com'), policies.policyFor('example.com')]);
    expect(discover).toHaveBeenCalledTimes(1);
    advance(60_000);
    await policies.policyFor('example.com');
    expect(discover).toHaveBeenCalledTimes(1);
    advance(5 * 60_000);
    await policies.policyFor('example.com');
    expect(discover).toHaveBeenCalledTimes(2);
  });
});
