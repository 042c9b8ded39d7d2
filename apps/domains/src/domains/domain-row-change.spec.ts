import { DomainEntity } from '../database/entities/domain.entity';
import { domainRowChange } from './domain-row-change';

const at = (iso: string) => new Date(iso);

function domain(): DomainEntity {
  return Object.assign(new DomainEntity(), {
    id: 'dom_1',
    name: 'example.com',
    status: 'verified',
    spfStatus: 'verified',
    dkimStatus: 'verified',
    dmarcStatus: 'verified',
    verifiedAt: at('2026-11-26T10:00:00Z'),
    checkAttempts: 0,
    nextCheckAt: at('2026-11-26T16:00:00Z'),
    lastCheckedAt: at('2026-11-26T10:00:00Z'),
    updatedAt: at('2026-11-26T10:00:00Z'),
  });
}

describe(domainRowChange.name, () => {
  it('finds nothing when no column changed, dates compared by their instant', () => {
    const before = domain();
    expect(domainRowChange(before, Object.assign(domain(), { verifiedAt: at('2026-11-26T10:00:00Z') }))).toBe('none');
  });

  it('calls a check that wrote only when it ran and when the next one is due bookkeeping', () => {
    const after = Object.assign(domain(), { lastCheckedAt: at('2026-11-26T11:00:00Z'), nextCheckAt: at('2026-11-26T17:00:00Z'), checkAttempts: 1 });
    expect(domainRowChange(domain(), after)).toBe('bookkeeping');
  });

  it('calls any other column a change of the domain', () => {
    expect(domainRowChange(domain(), Object.assign(domain(), { lastCheckedAt: at('2026-11-26T11:00:00Z'), status: 'failed' }))).toBe('domain');
    expect(domainRowChange(domain(), Object.assign(domain(), { dmarcStatus: 'pending' }))).toBe('domain');
    expect(domainRowChange(domain(), Object.assign(domain(), { openTracking: true }))).toBe('domain');
  });
});
