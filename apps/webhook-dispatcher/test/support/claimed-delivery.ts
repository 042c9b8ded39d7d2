import type { ClaimedDelivery } from '../../src/dispatch/dispatch.repository';

let next = 0;

/** A claimed delivery for unit tests, with a fresh id each call. */
export const claimedDelivery = (webhookId: string, payloadBytes = 100): ClaimedDelivery => ({
  id: `whd_${(next += 1)}`,
  webhookId,
  eventId: `evt_${next}`,
  payload: { id: `evt_${next}`, type: 'email.delivered', createdAt: '2026-01-01T00:00:00.000Z', mode: 'live', data: {} },
  payloadBytes,
  attempts: 0,
  attemptLimit: 8,
  url: 'https://example.com/hooks',
  webhookStatus: 'active',
  secretSealed: 'sealed',
  previousSecretSealed: null,
  previousSecretExpiresAt: null,
});
