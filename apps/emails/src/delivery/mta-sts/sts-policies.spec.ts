import { stsPolicyFetches } from './mta-sts-metrics';
import { StoredStsPolicy, StsPolicyStore } from './mta-sts.repository';
import { PolicyFetch } from './policy-fetch';
import { StsAnnouncement } from './sts-discovery';
import { StsPolicies } from './sts-policies';

const ENFORCE_TEXT = 'version: STSv1\nmode: enforce\nmx: mx.example.com\nmax_age: 86400\n';
const ENFORCE = { mode: 'enforce', mx: ['mx.example.com'], maxAgeSeconds: 86400 };
/** Fetched when the test's clock starts, with a week's max_age: a refresh is due a day later. */
const CACHED: StoredStsPolicy = { policyId: 'old', mode: 'enforce', mx: ['mx.cached.example.com'], maxAgeSeconds: 604800, fetchedAt: new Date(0) };
const DAY_MS = 24 * 3600_000;

/**
 * StsPolicies over an in-memory store (which stamps what it saves with the test's clock, as the table does with
 * now()), a scripted TXT answer and a scripted fetch, with a clock the test moves.
 */
function subject(options: { announcement: StsAnnouncement; fetched?: PolicyFetch; cached?: StoredStsPolicy }) {
  let now = 0;
  const rows = new Map<string, StoredStsPolicy>(options.cached ? [['example.com', options.cached]] : []);
  const store: StsPolicyStore = {
    find: async (domain) => rows.get(domain) ?? null,
    save: async (domain, policy) => void rows.set(domain, Object.assign({ fetchedAt: new Date(now) }, policy)),
  };
  const fetch = jest.fn(async (): Promise<PolicyFetch> => options.fetched ?? { ok: false, reason: 'not scripted', failure: 'sts-policy-fetch-error' });
  const discover = jest.fn(async () => options.announcement);
  const tlsSessions: unknown[][] = [];
  const policies = new StsPolicies(store, { discover, fetch }, { now: () => now, tlsReports: { record: (...session) => tlsSessions.push(session) } });
  return { policies, rows, fetch, discover, tlsSessions, advance: (ms: number) => (now += ms) };
}

describe(StsPolicies.name, () => {
  it('fetches and caches the policy of a domain seen for the first time, under the id its record announced', async () => {
    const { policies, rows, fetch } = subject({ announcement: { kind: 'policy', id: 'v1' }, fetched: { ok: true, text: ENFORCE_TEXT } });
    expect(await policies.policyFor('example.com')).toEqual(ENFORCE);
    expect(fetch).toHaveBeenCalledWith('example.com');
    expect(rows.get('example.com')).toEqual(Object.assign({ policyId: 'v1', fetchedAt: new Date(0) }, ENFORCE));
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
    ['a new policy cannot be fetched', { kind: 'policy', id: 'v2' }, { ok: false, reason: 'HTTP 404', failure: 'sts-policy-fetch-error' }],
    ['a new policy is invalid', { kind: 'policy', id: 'v2' }, { ok: true, text: '<html>' }],
  ])('keeps the cached policy when %s (RFC 8461 §5.1)', async (_, announcement, fetched) => {
    const { policies, rows } = subject({ announcement, fetched, cached: CACHED });
    expect(await policies.policyFor('example.com')).toEqual(CACHED);
    expect(rows.get('example.com')).toEqual(CACHED);
  });

  it.each<[string, StsAnnouncement, PolicyFetch | undefined]>([
    ['no record', { kind: 'none' }, undefined],
    ['a failed record lookup', { kind: 'failed', reason: 'ETIMEOUT' }, undefined],
    ['a failed fetch', { kind: 'policy', id: 'v1' }, { ok: false, reason: 'ECONNREFUSED', failure: 'sts-policy-fetch-error' }],
  ])('has no policy, with nothing cached, after %s (fail open on first contact)', async (_, announcement, fetched) => {
    const { policies, rows } = subject({ announcement, fetched });
    expect(await policies.policyFor('example.com')).toBeNull();
    expect(rows.size).toBe(0);
  });

  describe('telling TLS reports of a fetch that gave no policy (RFC 8460 §4.3.2.1)', () => {
    const NEW_ID: StsAnnouncement = { kind: 'policy', id: 'v2' };
    const CACHED_REPORTED = { type: 'sts', string: ['version: STSv1', 'mode: enforce', 'mx: mx.cached.example.com', 'max_age: 604800'], mxHost: ['mx.cached.example.com'] };

    it.each<[string, PolicyFetch, string]>([
      ['could not be fetched', { ok: false, reason: 'ECONNREFUSED', failure: 'sts-policy-fetch-error' }, 'sts-policy-fetch-error'],
      ['came with a certificate refused', { ok: false, reason: 'CERT_HAS_EXPIRED: certificate has expired', failure: 'sts-webpki-invalid' }, 'sts-webpki-invalid'],
      ['was not served as text/plain', { ok: false, reason: "media type 'text/html', not text/plain", failure: 'sts-policy-invalid' }, 'sts-policy-invalid'],
      ['does not parse', { ok: true, text: '<html>' }, 'sts-policy-invalid'],
    ])('counts one failed session when the policy %s, under an MTA-STS policy of which nothing could be read', async (_, fetched, resultType) => {
      const { policies, tlsSessions } = subject({ announcement: NEW_ID, fetched });
      expect(await policies.policyFor('example.com')).toBeNull();
      expect(tlsSessions).toEqual([['example.com', { type: 'sts', string: [], mxHost: [] }, { ok: false, resultType, mxHostname: '', ip: '' }]]);
    });

    it('counts it under the cached policy, which the mail goes under', async () => {
      const { policies, tlsSessions } = subject({ announcement: NEW_ID, fetched: { ok: false, reason: 'HTTP 404', failure: 'sts-policy-fetch-error' }, cached: CACHED });
      expect(await policies.policyFor('example.com')).toEqual(CACHED);
      expect(tlsSessions).toEqual([['example.com', CACHED_REPORTED, { ok: false, resultType: 'sts-policy-fetch-error', mxHostname: '', ip: '' }]]);
    });

    it.each<[string, StsAnnouncement, PolicyFetch | undefined]>([
      ['a policy fetched', NEW_ID, { ok: true, text: ENFORCE_TEXT }],
      ['no record', { kind: 'none' }, undefined],
      ['a failed record lookup', { kind: 'failed', reason: 'ETIMEOUT' }, undefined],
    ])('counts nothing after %s', async (_, announcement, fetched) => {
      const { policies, tlsSessions } = subject({ announcement, fetched });
      await policies.policyFor('example.com');
      expect(tlsSessions).toEqual([]);
    });
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

  describe('refreshing a cached policy while its id is unchanged (RFC 8461 §5.1)', () => {
    const SAME_ID: StsAnnouncement = { kind: 'policy', id: 'old' };
    /** The refresh interval: the smaller of a day and half the max_age. */
    const INTERVALS: [string, number, number][] = [
      ['a day, for a policy of a week', 604800, DAY_MS],
      ['half its max_age, for a policy of an hour', 3600, 1800_000],
    ];

    it.each(INTERVALS)('fetches it again after %s, and saves it under the same id from now', async (_, maxAgeSeconds, intervalMs) => {
      const cached = Object.assign({}, CACHED, { maxAgeSeconds });
      const { policies, rows, fetch, advance } = subject({ announcement: SAME_ID, fetched: { ok: true, text: ENFORCE_TEXT }, cached });
      advance(intervalMs);
      expect(await policies.policyFor('example.com')).toEqual(ENFORCE);
      expect(fetch).toHaveBeenCalledWith('example.com');
      expect(rows.get('example.com')).toEqual(Object.assign({ policyId: 'old', fetchedAt: new Date(intervalMs) }, ENFORCE));
    });

    it.each(INTERVALS)('does not fetch it before %s', async (_, maxAgeSeconds, intervalMs) => {
      const cached = Object.assign({}, CACHED, { maxAgeSeconds });
      const { policies, rows, fetch, advance } = subject({ announcement: SAME_ID, fetched: { ok: true, text: ENFORCE_TEXT }, cached });
      advance(intervalMs - 1000);
      expect(await policies.policyFor('example.com')).toEqual(cached);
      expect(fetch).not.toHaveBeenCalled();
      expect(rows.get('example.com')).toEqual(cached);
    });

    it.each<[string, PolicyFetch, string]>([
      ['cannot be fetched', { ok: false, reason: 'ECONNREFUSED', failure: 'sts-policy-fetch-error' }, 'failed'],
      ['is no valid policy', { ok: true, text: '<html>' }, 'invalid'],
    ])('keeps the cached policy, its expiry unchanged, when the refresh %s, and counts the fetch', async (_, fetched, outcome) => {
      const { policies, rows, fetch, advance } = subject({ announcement: SAME_ID, fetched, cached: CACHED });
      const before = await fetchCount(outcome);
      advance(DAY_MS);
      expect(await policies.policyFor('example.com')).toEqual(CACHED);
      expect(fetch).toHaveBeenCalledTimes(1);
      expect(rows.get('example.com')).toBe(CACHED);
      expect(await fetchCount(outcome)).toBe(before + 1);
    });

    it.each<[string, StsAnnouncement]>([
      ['the record is gone', { kind: 'none' }],
      ['the record lookup failed', { kind: 'failed', reason: 'ESERVFAIL' }],
    ])('does not refresh it when %s: it applies as it is until it expires', async (_, announcement) => {
      const { policies, fetch, advance } = subject({ announcement, fetched: { ok: true, text: ENFORCE_TEXT }, cached: CACHED });
      advance(DAY_MS);
      expect(await policies.policyFor('example.com')).toEqual(CACHED);
      expect(fetch).not.toHaveBeenCalled();
    });
  });
});

/** How many fetches mailroom_mta_sts_policy_fetches_total has counted with this outcome so far. */
async function fetchCount(outcome: string): Promise<number> {
  const { values } = await stsPolicyFetches.get();
  return values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
}
