import { trackingHit } from './tracking-hit';

describe(trackingHit.name, () => {
  it('names an IPv4 reader that reached a dual-stack socket by its IPv4 address', () => {
    expect(trackingHit('email_1', { ip: '::ffff:192.0.2.7', headers: {} }).ip).toBe('192.0.2.7');
    expect(trackingHit('email_1', { ip: '::ffff:c000:207', headers: {} }).ip).toBe('192.0.2.7');
  });

  it('keeps an IPv6 or IPv4 reader as it came, and the first user agent', () => {
    expect(trackingHit('email_1', { ip: '2001:db8::7', headers: { 'user-agent': 'Mail/1.0' } })).toEqual({ emailId: 'email_1', ip: '2001:db8::7', userAgent: 'Mail/1.0' });
    expect(trackingHit('email_1', { ip: '192.0.2.7', headers: { 'user-agent': ['A', 'B'] } })).toEqual({ emailId: 'email_1', ip: '192.0.2.7', userAgent: 'A' });
    expect(trackingHit('email_1', { ip: '', headers: {} })).toEqual({ emailId: 'email_1', ip: null, userAgent: null });
  });
});
