import { metricsOf } from './event-metrics';

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
});
