import { checkDmarc, classifyDnsError } from './verification-rules';

const dmarc = (record: string) => checkDmarc({ kind: 'found', values: [record] });
const problemOf = (record: string) => {
  const outcome = dmarc(record);
  return outcome.result === 'fail' ? outcome.problem : `unexpected ${outcome.result}`;
};

describe(checkDmarc.name, () => {
  it('passes a record with a valid p=, and one whose policy receivers read as p=none because it has a reporting URI (RFC 7489 §6.6.3 step 6)', () => {
    expect(dmarc('v=DMARC1; p=reject; sp=quarantine')).toEqual({ result: 'pass' });
    expect(dmarc('v=DMARC1; p=none; rua=garbage')).toEqual({ result: 'pass' });
    expect(dmarc('v=DMARC1; p=maybe; rua=mailto:dmarc@example.com')).toEqual({ result: 'pass' });
    expect(dmarc('v=DMARC1; rua=mailto:dmarc@example.com!10m')).toEqual({ result: 'pass' });
    expect(dmarc('v=DMARC1; p=reject; sp=bogus; rua=dmarc@example.com, https://reports.example.com/dmarc')).toEqual({ result: 'pass' });
  });

  it('says why a record without a policy receivers apply does not count: p= missing or invalid, sp= invalid, no usable rua=', () => {
    expect(problemOf('v=DMARC1')).toBe('the DMARC record has no p= tag, and it has no rua=, so receivers apply no DMARC policy (RFC 7489 §6.6.3 step 6); add p=none');
    expect(problemOf('v=DMARC1; p=maybe')).toBe(
      'the DMARC record\'s p=maybe is not none, quarantine or reject, and it has no rua=, so receivers apply no DMARC policy (RFC 7489 §6.6.3 step 6); write p=none, p=quarantine or p=reject',
    );
    // An invalid sp= voids the record as an invalid p= does, whatever p= says.
    expect(problemOf('v=DMARC1; p=reject; sp=bogus')).toBe(
      "the DMARC record's sp=bogus is not none, quarantine or reject, and it has no rua=, so receivers apply no DMARC policy (RFC 7489 §6.6.3 step 6); fix sp= or remove it",
    );
    expect(problemOf('v=DMARC1; p=reject; sp=')).toContain("the DMARC record's sp= is not none, quarantine or reject");
    // rua= stands in for p= only with a syntactically valid URI: a bare address is not one.
    expect(problemOf('v=DMARC1; rua=dmarc@example.com')).toBe(
      'the DMARC record has no p= tag, and its rua=dmarc@example.com holds no valid reporting URI (write mailto:dmarc@example.com), so receivers apply no DMARC policy (RFC 7489 §6.6.3 step 6); add p=none',
    );
    expect(problemOf('v=DMARC1; rua=mailto:')).toContain('its rua=mailto: holds no valid reporting URI');
  });

  it('is a plain fail without a record, refuses two, and reports a failed lookup', () => {
    expect(checkDmarc({ kind: 'missing' })).toEqual({ result: 'fail' });
    expect(checkDmarc({ kind: 'found', values: ['v=spf1 -all'] })).toEqual({ result: 'fail' });
    expect(checkDmarc({ kind: 'found', values: ['v=DMARC1; p=none', 'v=DMARC1; p=reject'] })).toMatchObject({ result: 'fail', problem: 'found 2 DMARC records; publish exactly one' });
    expect(checkDmarc({ kind: 'error', error: 'timeout' })).toEqual({ result: 'error', error: 'timeout' });
  });

  it('counts a record only when v=DMARC1 is its first tag, as receivers do (RFC 7489 §6.3), and says why one that has it later does not count', () => {
    expect(problemOf('p=reject; v=DMARC1')).toBe('the TXT record at _dmarc has v=DMARC1, but not as its first tag, so receivers ignore it (RFC 7489 §6.3); put v=DMARC1 first');
    expect(problemOf('rua=mailto:d@example.com; V = DMARC1; p=none')).toContain('not as its first tag');
    expect(checkDmarc({ kind: 'found', values: ['p=reject; v=DMARC1', 'v=DMARC1; p=none'] })).toEqual({ result: 'pass' });
  });

  it('accepts p= after other tags: receivers read the tags in any order once v=DMARC1 is first', () => {
    expect(dmarc('v=DMARC1; rua=mailto:d@example.com; p=reject')).toEqual({ result: 'pass' });
    expect(dmarc('v=DMARC1; pct=50; sp=none; p=quarantine')).toEqual({ result: 'pass' });
  });
});

describe(classifyDnsError.name, () => {
  it('takes no such name, no such record and a name DNS cannot hold as missing, and every other code as a failed lookup', () => {
    for (const code of ['ENOTFOUND', 'ENODATA', 'EBADNAME']) expect(classifyDnsError(code)).toEqual({ kind: 'missing' });
    expect(classifyDnsError('ESERVFAIL')).toEqual({ kind: 'error', error: 'servfail' });
    expect(classifyDnsError('ETIMEOUT')).toEqual({ kind: 'error', error: 'timeout' });
    expect(classifyDnsError('ENOTIMP')).toEqual({ kind: 'error', error: 'enotimp' });
    expect(classifyDnsError(undefined)).toEqual({ kind: 'error', error: 'lookup failed' });
  });
});
