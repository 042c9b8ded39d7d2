import { AllowedMethods } from './allowed-methods';

const allowed = new AllowedMethods([
  { method: 'GET', url: '/v1/emails' },
  { method: 'HEAD', url: '/v1/emails' },
  { method: 'POST', url: '/v1/emails' },
  { method: 'GET', url: '/v1/emails/:id' },
  { method: 'POST', url: '/v1/emails/:id/cancel' },
]);

describe(AllowedMethods.name, () => {
  it('lists the methods a path is served with, sorted, a parameter standing for one segment', () => {
    expect(allowed.at('/v1/emails')).toEqual(['GET', 'HEAD', 'POST']);
    expect(allowed.at('/v1/emails/email_1')).toEqual(['GET']);
    expect(allowed.at('/v1/emails/email_1/cancel')).toEqual(['POST']);
    expect(allowed.at('/v1/emails/a/b')).toEqual([]);
    expect(allowed.at('/v1/nothing')).toEqual([]);
  });

  it('reads a percent-encoded path as Fastify routes it, so a path served under GET is 405 under PUT however it is spelt', () => {
    expect(allowed.at('/v1/%65mails')).toEqual(['GET', 'HEAD', 'POST']);
    expect(allowed.at('/v1/%65mails/email_1/%63ancel')).toEqual(['POST']);
    // An encoded slash stays inside its segment, as in Fastify's routing: it is one id.
    expect(allowed.at('/v1/emails/a%2Fb')).toEqual(['GET']);
    // Not UTF-8 once decoded: no route has it, under any method (404).
    expect(allowed.at('/v1/emails/%ff')).toEqual([]);
    expect(allowed.at('/v1/%ffmails')).toEqual([]);
  });
});
