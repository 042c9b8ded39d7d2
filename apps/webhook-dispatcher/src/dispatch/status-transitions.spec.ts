import { afterFailure, afterManualStatus, afterSuccess, WebhookHealth } from './status-transitions';

const policy = { disableAfterMs: 5 * 24 * 3_600_000, disableAfterFailedDeliveries: 3 };
const healthy: WebhookHealth = { status: 'active', failureCount: 0, failedDeliveriesStreak: 0, firstFailureAt: null, disabledReason: null };
const t0 = new Date('2025-01-01T00:00:00Z');
const fail = (health: WebhookHealth, at = t0, extra: Partial<{ gone: boolean; deliveryExhausted: boolean }> = {}) =>
  afterFailure(health, { at, gone: false, deliveryExhausted: false, ...extra }, policy);

describe('webhook status transitions', () => {
  it('active → failing after one failed attempt, counting it', () => {
    const next = fail(healthy);
    expect(next).toMatchObject({ status: 'failing', failureCount: 1, firstFailureAt: t0 });
    expect(fail(next, new Date(t0.getTime() + 1000))).toMatchObject({ status: 'failing', failureCount: 2, firstFailureAt: t0 });
  });

  it('failing → active with failureCount 0 on any success', () => {
    expect(afterSuccess(fail(fail(healthy)))).toEqual(healthy);
  });

  it('disables at once on 410 Gone', () => {
    expect(fail(healthy, t0, { gone: true })).toMatchObject({ status: 'disabled', disabledReason: 'the endpoint answered 410 Gone' });
  });

  it('disables when failures have lasted the window', () => {
    const failing = fail(healthy);
    expect(fail(failing, new Date(t0.getTime() + policy.disableAfterMs - 1)).status).toBe('failing');
    expect(fail(failing, new Date(t0.getTime() + policy.disableAfterMs)).status).toBe('disabled');
  });

  it('disables after N deliveries in a row failed for good', () => {
    let health = healthy;
    for (let i = 0; i < 2; i += 1) health = fail(health, t0, { deliveryExhausted: true });
    expect(health.status).toBe('failing');
    expect(fail(health, t0, { deliveryExhausted: true })).toMatchObject({ status: 'disabled', failedDeliveriesStreak: 3 });
  });

  it('keeps a disabled webhook disabled whatever an in-flight attempt does; PATCH active re-enables and resets', () => {
    const disabled = afterManualStatus(fail(healthy), 'disabled');
    expect(disabled.status).toBe('disabled');
    expect(afterSuccess(disabled).status).toBe('disabled');
    expect(fail(disabled).status).toBe('disabled');
    expect(afterManualStatus(disabled, 'active')).toEqual(healthy);
  });
});
