import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parseEmailAddress } from '../emails/email-address';
import { eventDomainOf, fromDomainOf } from './event-domain';

describe(fromDomainOf.name, () => {
  it('reads the from domain of bare and named addresses', () => {
    expect(fromDomainOf('Acme <Hi@Acme.COM>')).toBe('acme.com');
    expect(fromDomainOf('hi@acme.com')).toBe('acme.com');
    expect(fromDomainOf(undefined)).toBe('');
  });

  it.each(['x@bücher.de', 'x@XN--BCHER-KVA.de', 'x@BÜCHER.de', 'Ann <x@bücher.de>', '"Ann" <X@Bücher.De>'])(
    'reads %s under the punycode domain from_domain stores',
    (from) => {
      expect(fromDomainOf(from)).toBe('xn--bcher-kva.de');
      expect(fromDomainOf(from)).toBe(parseEmailAddress(from)?.domain);
    },
  );

  it('reads an address followed by a comment as a send does', () => {
    expect(fromDomainOf('x@a.com (Ann)')).toBe('a.com');
    expect(fromDomainOf('(Ann) x@A.com')).toBe('a.com');
  });

  it('remembers a few megabytes of froms at most, however long the froms of the events it reads', () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    // An internal publisher's event may carry a from as large as the NATS payload: 10,000 of them were kept.
    for (let index = 0; index < 100; index++) expect(fromDomainOf(`${index} ${'N'.repeat(1_000_000)} <x@a.com>`)).toBe('a.com');
    collectGarbage();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(30_000_000);
  });

  it("reads an internal publisher's looser text by its <address>, and '' when nothing reads", () => {
    expect(fromDomainOf('Acme, Inc. <hi@Bücher.de>')).toBe('xn--bcher-kva.de');
    expect(fromDomainOf('no address here')).toBe('');
    expect(fromDomainOf('x@localhost')).toBe('');
    expect(fromDomainOf(42)).toBe('');
  });
});

describe(eventDomainOf.name, () => {
  it('reads an email event by its from and a domain event by its name, in the stored form', () => {
    expect(eventDomainOf({ type: 'email.sent', data: { from: 'Acme <hi@Bücher.de>' } })).toBe('xn--bcher-kva.de');
    expect(eventDomainOf({ type: 'domain.verified', data: { id: 'dom_1', name: 'Mail.A.test' } })).toBe('mail.a.test');
  });

  it("answers '' for an event that names no domain that reads", () => {
    expect(eventDomainOf({ type: 'email.complained', data: { emailId: 'email_1' } })).toBe('');
    expect(eventDomainOf({ type: 'email.sent', data: { name: 'a.test' } })).toBe('');
    expect(eventDomainOf({ type: 'domain.verified', data: { from: 'x@a.test' } })).toBe('');
    expect(eventDomainOf({ type: 'domain.failed', data: { name: 'not a name' } })).toBe('');
    expect(eventDomainOf({ type: 'webhook.test', data: { from: 'x@a.test' } })).toBe('');
  });
});
