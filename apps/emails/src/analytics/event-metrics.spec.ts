import { metricsOf } from './event-metrics';

describe(metricsOf.name, () => {
  it('maps each email event to the counters it moves', () => {
    expect(metricsOf({ type: 'email.delivered', data: {} })).toEqual(['sent', 'delivered']);
    expect(metricsOf({ type: 'email.sent', data: {} })).toEqual(['sent']);
    expect(metricsOf({ type: 'email.bounced', data: { recipient: 'a@x.test', smtp: { code: 550 } } })).toEqual(['bounced']);
    expect(metricsOf({ type: 'email.opened', data: { first: true } })).toEqual(['opens', 'uniqueOpens']);
    expect(metricsOf({ type: 'email.opened', data: { first: false } })).toEqual(['opens']);
    expect(metricsOf({ type: 'email.clicked', data: { first: true } })).toEqual(['clicks', 'uniqueClicks']);
    expect(metricsOf({ type: 'email.queued', data: {} })).toEqual([]);
  });

  it('counts no bounce for a reported email.bounced the emails app does not apply', () => {
    expect(metricsOf({ type: 'email.bounced', data: { recipient: 'a@x.test', smtp: { code: 451 } } })).toEqual([]);
    expect(metricsOf({ type: 'email.bounced', data: { recipient: 'nobody', smtp: { code: 550 } } })).toEqual([]);
    expect(metricsOf({ type: 'email.bounced', data: { recipient: 'a@x.test', smtp: '552 5.2.2 mailbox full' } })).toEqual([]);
    expect(metricsOf({ type: 'email.bounced', data: { recipient: 'a@x.test', smtp: { reply: ['552 5.2.2 mailbox full'] } } })).toEqual([]);
    expect(metricsOf({ type: 'email.bounced', data: { recipient: 'a@x.test', smtp: { code: null }, suppressed: false } })).toEqual(['bounced']);
  });

  it('counts each recipient suppressed when its email was accepted, and each one suppressed at delivery, once', () => {
    expect(metricsOf({ type: 'email.suppressed', data: { recipients: ['a@x.test', 'b@x.test'] } })).toEqual(['suppressed', 'suppressed']);
    expect(metricsOf({ type: 'email.suppressed', data: { recipient: 'a@x.test', reason: 'the address is on the suppression list' } })).toEqual(['suppressed']);
    // Those suppressed beside others have an email.suppressed each (above); the list on email.queued or email.scheduled is not counted again.
    expect(metricsOf({ type: 'email.queued', data: { suppressedRecipients: ['a@x.test'] } })).toEqual([]);
    expect(metricsOf({ type: 'email.scheduled', data: { suppressedRecipients: ['a@x.test'] } })).toEqual([]);
  });
});
