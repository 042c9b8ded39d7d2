import { deliveryHeaders } from './delivery-headers';
import type { ClaimedDelivery } from './dispatch.repository';

function delivery(type: string): ClaimedDelivery {
  return {
    id: 'whd_1',
    webhookId: 'wh_1',
    eventId: 'evt_1',
    payload: { id: 'evt_1', type, createdAt: '2026-11-26T00:00:00.000Z', mode: 'live', data: {} },
    payloadBytes: 100,
    attempts: 2,
    attemptLimit: 8,
    url: 'https://hooks.example/1',
    webhookStatus: 'active',
    secretSealed: 'sealed',
    previousSecretSealed: null,
    previousSecretExpiresAt: null,
  };
}

describe(deliveryHeaders.name, () => {
  it('names the event, its kind, the delivery and the attempt beside the signature', () => {
    expect(deliveryHeaders(delivery('email.delivered'), 't=1,v1=ab')).toEqual({
      'content-type': 'application/json',
      'user-agent': 'Mailroom-Webhooks/1.0',
      'service-signature': 't=1,v1=ab',
      'service-event-id': 'evt_1',
      'webhook-id': 'evt_1',
      'service-event-type': 'email.delivered',
      'service-delivery-id': 'whd_1',
      'service-delivery-attempt': '3',
    });
  });

  it.each([['email.配信'], ['email.bad\nkind'], ['email. spaced']])('leaves out a kind %j an HTTP header cannot carry as it is', (type) => {
    expect(deliveryHeaders(delivery(type), 't=1,v1=ab')).not.toHaveProperty('service-event-type');
  });
});
