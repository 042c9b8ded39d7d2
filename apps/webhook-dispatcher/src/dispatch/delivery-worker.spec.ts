import { deferred } from '@mailroom/testing';
import { claimedDelivery } from '../../test/support/claimed-delivery';
import type { WebhookSettings } from '../webhook-settings';
import type { DeliveryAttempter } from './delivery-attempter';
import { DeliveryWorker } from './delivery-worker';
import type { ClaimedDelivery, DispatchRepository } from './dispatch.repository';
import { SLOW_AFTER_TIMEOUT_SHARE } from './slow-endpoints';

const TIMEOUT_MS = 1000;
const POLL_MS = 50;

describe(DeliveryWorker.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const workerWith = (claims: Array<Promise<ClaimedDelivery[]>>) => {
    const repository = {
      claimDue: jest.fn(() => claims.shift() ?? Promise.resolve([])),
      releaseLeases: jest.fn(async () => undefined),
      renewLeases: jest.fn(async () => []),
    };
    // Requests that never answer (a black-hole endpoint) until shutdown aborts them.
    const aborts: Array<() => void> = [];
    const attempter = {
      attempt: jest.fn(() => new Promise<void>((end) => aborts.push(end))),
      stop: jest.fn(() => aborts.forEach((abort) => abort())),
      close: jest.fn(),
    };
    const settings = { concurrency: 4, concurrencyPerEndpoint: 2, deliveryBufferBytes: 1_000_000, timeoutMs: TIMEOUT_MS, leaseMs: 30_000, pollMs: POLL_MS };
    const worker = new DeliveryWorker(repository as unknown as DispatchRepository, attempter as unknown as DeliveryAttempter, settings as unknown as WebhookSettings);
    return { worker, repository, attempter };
  };

  it('hands back a delivery a claim brings for an endpoint that turned slow while the claim ran, instead of holding it behind the open requests', async () => {
    const open = [claimedDelivery('wh_x'), claimedDelivery('wh_x')];
    const late = claimedDelivery('wh_x');
    const inFlight = deferred<ClaimedDelivery[]>();
    const { worker, repository, attempter } = workerWith([Promise.resolve(open), inFlight.promise]);
    worker.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(POLL_MS);
    expect(attempter.attempt).toHaveBeenCalledTimes(2);
    expect(repository.claimDue).toHaveBeenCalledTimes(2);

    // The open requests pass the slow mark (nothing queued to hand back yet), then the claim comes back with a third.
    await jest.advanceTimersByTimeAsync(TIMEOUT_MS * SLOW_AFTER_TIMEOUT_SHARE);
    expect(repository.releaseLeases).not.toHaveBeenCalled();
    inFlight.resolve([late]);
    await jest.advanceTimersByTimeAsync(0);

    expect(attempter.attempt).toHaveBeenCalledTimes(2);
    expect(repository.releaseLeases).toHaveBeenCalledWith(worker.owner, [late.id]);
    repository.renewLeases.mockClear();
    await jest.advanceTimersByTimeAsync(30_000 / 3);
    expect(repository.renewLeases).toHaveBeenCalledWith(worker.owner, open.map((item) => item.id), 30_000);
    await worker.beforeApplicationShutdown();
  });
});
