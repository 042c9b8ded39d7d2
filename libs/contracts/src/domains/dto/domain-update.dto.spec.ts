import { validateDto } from '../../validation/validate-dto';
import { DomainUpdateDto } from './domain-update.dto';

const problemOf = (body: unknown): string | null => {
  try {
    validateDto(DomainUpdateDto, body);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
};

describe(DomainUpdateDto.name, () => {
  it('accepts the switches and a tracking domain in any case, or null, or nothing at all', () => {
    expect(problemOf({})).toBeNull();
    expect(problemOf({ openTracking: false, clickTracking: true })).toBeNull();
    expect(problemOf({ trackingDomain: 'Links.Acme.TEST' })).toBeNull();
    expect(problemOf({ trackingDomain: 'klick.bücher.example' })).toBeNull();
    expect(problemOf({ trackingDomain: null })).toBeNull();
  });

  it('leaves which strings are tracking domains to the domains service, which alone knows the default host (it may be localhost or an IP address)', () => {
    expect(problemOf({ trackingDomain: 'localhost' })).toBeNull();
    expect(problemOf({ trackingDomain: '127.0.0.1' })).toBeNull();
  });

  it('names the field that is wrong', () => {
    expect(problemOf({ openTracking: 'yes' })).toBe('openTracking: must be true or false');
    expect(problemOf({ clickTracking: null })).toBe('clickTracking: must not be null');
    expect(problemOf({ trackingDomain: 42 })).toBe('trackingDomain: must be a string');
    expect(problemOf({ trackingDomain: ['links.acme.test'] })).toBe('trackingDomain: must be a string');
    expect(problemOf({ openTracking: true, tracking: false })).toBe('tracking: is not a known field');
  });
});
