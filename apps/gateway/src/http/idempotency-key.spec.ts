import { DomainError } from '@mailroom/errors';
import { idempotencyFrom } from './idempotency-key';

describe(idempotencyFrom.name, () => {
  const hashOf = (route: string, body: unknown) => idempotencyFrom('k1', route, body)!.requestHash;

  it('is undefined without the header, and carries the key with a hash of the request otherwise', () => {
    expect(idempotencyFrom(undefined, 'POST /v1/webhooks', {})).toBeUndefined();
    expect(idempotencyFrom('k1', 'POST /v1/webhooks', { url: 'https://a.test/' })).toEqual({ key: 'k1', requestHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('hashes one JSON value alike whatever its key order, and a null field as one left out', () => {
    const route = 'POST /v1/webhooks';
    expect(hashOf(route, { url: 'u', events: ['*'], description: null })).toBe(hashOf(route, { events: ['*'], url: 'u' }));
    expect(hashOf(route, { url: 'u', events: ['*'] })).not.toBe(hashOf(route, { url: 'u', events: ['email.sent'] }));
  });

  it('hashes the same body on two routes apart, so a key used on one route is a conflict on another', () => {
    expect(hashOf('POST /v1/webhooks', { to: 'a' })).not.toBe(hashOf('POST /v1/emails', { to: 'a' }));
  });

  it.each(['', 'has space', 'ü', 'k'.repeat(257)])('refuses the header %j with 422 naming it', (header) => {
    const refused = () => idempotencyFrom(header, 'POST /v1/webhooks', {});
    expect(refused).toThrow(DomainError);
    expect(refused).toThrow('Idempotency-Key: must be 1 to 256 printable ASCII characters without spaces');
  });
});
