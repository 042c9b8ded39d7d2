import { parseEmailAddress } from '@mailroom/contracts';
import { domainOf, metricsOf } from './event-metrics';

describe(metricsOf.name, () => {
  it('maps each email event to the counters it moves', () => {
    expect(metricsOf({ type: 'email.delivered', data: {} })).toEqual(['sent', 'delivered']);
    expect(metricsOf({ type: 'email.sent', data: {} })).toEqual(['sent']);
    expect(metricsOf({ type: 'email.bounced', data: {} })).toEqual(['bounced']);
    expect(metricsOf({ type: 'email.opened', data: { first: true } })).toEqual(['opens', 'uniqueOpens']);
    expect(metricsOf({ type: 'email.opened', data: { first: false } })).toEqual(['opens']);
    expect(metricsOf({ type: 'email.clicked', data: { first: true } })).toEqual(['clicks', 'uniqueClicks']);
    expect(metricsOf({ type: 'email.queued', data: {} })).toEqual([]);
  });

  it('reads the from domain of bare and named addresses', () => {
    expect(domainOf('Acme <Hi@Acme.COM>')).toBe('acme.com');
    expect(domainOf('hi@acme.com')).toBe('acme.com');
    expect(domainOf(undefined)).toBe('');
  });

  it.each(['x@bücher.de', 'x@XN--BCHER-KVA.de', 'x@BÜCHER.de', 'Ann <x@bücher.de>', '"Ann" <X@Bücher.De>'])(
    'reads %s under the punycode domain from_domain stores',
    (from) => {
      expect(domainOf(from)).toBe('xn--bcher-kva.de');
      expect(domainOf(from)).toBe(parseEmailAddress(from)?.domain);
    },
  );

  it('reads an address followed by a comment as a send does', () => {
    expect(domainOf('x@a.com (Ann)')).toBe('a.com');
    expect(domainOf('(Ann) x@A.com')).toBe('a.com');
  });

  it("reads an internal publisher's looser text by its <address>, and '' when nothing reads", () => {
    expect(domainOf('Acme, Inc. <hi@Bücher.de>')).toBe('xn--bcher-kva.de');
    expect(domainOf('no address here')).toBe('');
    expect(domainOf('x@localhost')).toBe('');
    expect(domainOf(42)).toBe('');
  });
});
