import { validateDto } from '../../validation/validate-dto';
import { DomainUpdateDto, domainUpdateProblem } from './domain-update.dto';

const problemOf = (body: unknown): string | null => {
  try {
    validateDto(DomainUpdateDto, body);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
};

describe(DomainUpdateDto.name, () => {
  it('accepts the switches and a tracking domain in any case, or null', () => {
    expect(problemOf({ openTracking: false, clickTracking: true })).toBeNull();
    expect(problemOf({ trackingDomain: 'Links.Acme.TEST' })).toBeNull();
    expect(problemOf({ trackingDomain: 'klick.bücher.example' })).toBeNull();
    expect(problemOf({ trackingDomain: null })).toBeNull();
  });

  it('names the field that is wrong', () => {
    expect(problemOf({ openTracking: 'yes' })).toBe('openTracking: must be true or false');
    expect(problemOf({ clickTracking: null })).toBe('clickTracking: must not be null');
    expect(problemOf({ trackingDomain: 'not a host' })).toMatch(/^trackingDomain: must be a valid domain name/);
    expect(problemOf({ trackingDomain: '203.0.113.7' })).toBe('trackingDomain: must be a domain name, not an IP address');
    expect(problemOf({ trackingDomain: 'links.acme.test.' })).toBe('trackingDomain: must not end with a dot');
    expect(problemOf({ trackingDomain: 42 })).toBe('trackingDomain: must be a string');
    expect(problemOf({ openTracking: true, tracking: false })).toBe('tracking: is not a known field');
  });
});

describe(domainUpdateProblem.name, () => {
  it('refuses a body that changes nothing, and counts null as a change', () => {
    expect(domainUpdateProblem({})).toBe('must set at least one of openTracking, clickTracking, trackingDomain');
    expect(domainUpdateProblem({ trackingDomain: null })).toBeNull();
    expect(domainUpdateProblem({ clickTracking: false })).toBeNull();
  });
});
