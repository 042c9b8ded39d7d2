import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { SecretBox } from '@mailroom/auth';
import type { WebhookSettings } from '../webhook-settings';
import type { AttemptRecorder } from './attempt-recorder';
import { DeliveryAttempter } from './delivery-attempter';
import { INTERNAL_FAULT_MESSAGE } from './dispatcher-fault';
import type { AttemptRecord, ClaimedDelivery, DispatchRepository } from './dispatch.repository';

const SECRET = 'whsec_the_real_secret_never_logged';
const SCHEDULE = [0, 5_000, 300_000];

/** `failFirstWith`: an error the first write of an outcome throws, as Postgres aborting it. */
function setup(failFirstWith?: Error) {
  const box = new SecretBox(randomBytes(32).toString('base64'));
  const records: AttemptRecord[] = [];
  const record = jest.fn(async (attempt: AttemptRecord) => (records.push(attempt), true));
  if (failFirstWith) record.mockRejectedValueOnce(failFirstWith);
  const recorder = { record } as unknown as AttemptRecorder;
  const repository = { abandon: jest.fn(), releaseLease: jest.fn() } as unknown as DispatchRepository;
  const settings = {
    secretBox: box,
    retrySchedule: SCHEDULE,
    leaseMs: 60_000,
    timeoutMs: 1_000,
    maxResponseBytes: 1_024,
    urlPolicy: { allowHttp: true, allowPrivateNetworks: true },
    dns: { dnsServers: [], dnsTimeoutMs: 1_000 },
  } as unknown as WebhookSettings;
  const attempter = new DeliveryAttempter(repository, recorder, settings);
  const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  /** A delivery whose secret was sealed under another key, as after ENCRYPTION_KEY changed with the old key left out of ENCRYPTION_KEY_PREVIOUS. */
  const undecryptable = (overrides: Partial<ClaimedDelivery> = {}): ClaimedDelivery => {
    const webhookId = overrides.webhookId ?? 'wh_1';
    return Object.assign(
      {
        id: 'whd_1',
        webhookId,
        eventId: 'evt_1',
        payload: { id: 'evt_1', type: 'email.delivered', createdAt: '2026-11-26T00:00:00.000Z', mode: 'live', data: {} },
        payloadBytes: 100,
        attempts: 0,
        attemptLimit: SCHEDULE.length,
        // Nothing listens there: a request that went out would fail with a network error, not a dispatcher fault.
        url: 'http://127.0.0.1:9/hooks',
        webhookStatus: 'active',
        secretSealed: new SecretBox(randomBytes(32).toString('base64')).encrypt(SECRET, webhookId),
        previousSecretSealed: null,
        previousSecretExpiresAt: null,
      } satisfies ClaimedDelivery,
      overrides,
    );
  };
  return { attempter, records, record, errors, undecryptable, box };
}

describe(DeliveryAttempter.name, () => {
  afterEach(() => jest.restoreAllMocks());

  it('records a secret that does not decrypt as a failed attempt on the retry schedule that leaves the webhook health alone', async () => {
    const { attempter, records, undecryptable } = setup();
    const before = Date.now();
    await attempter.attempt(undecryptable(), 'worker-1');
    await attempter.attempt(undecryptable({ attempts: SCHEDULE.length - 1 }), 'worker-1');
    attempter.close();
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({ responseCode: null, error: 'signing secret could not be decrypted', success: false, gone: false, affectsWebhookHealth: false });
    // The wait after the first attempt is the schedule's (plus up to 10% jitter), not a lease.
    expect(records[0].nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(before + SCHEDULE[1]);
    expect(records[0].nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now() + SCHEDULE[1] * 1.1);
    // The last one the schedule allows fails the delivery for good.
    expect(records[1]).toMatchObject({ error: 'signing secret could not be decrypted', nextAttemptAt: null, affectsWebhookHealth: false });
  });

  it.each([
    ['deadlock detected', '40P01'],
    ['could not serialize access due to concurrent update', '40001'],
  ])('writes an outcome Postgres aborted over a conflict (%s) again, rather than leaving it to the lease and posting twice', async (message, code) => {
    const { attempter, records, record, undecryptable } = setup(Object.assign(new Error(message), { code }));
    await attempter.attempt(undecryptable(), 'worker-1');
    attempter.close();
    expect(record).toHaveBeenCalledTimes(2);
    expect(records).toEqual([expect.objectContaining({ error: 'signing secret could not be decrypted' })]);
  });

  it('treats a previous secret that does not decrypt the same way', async () => {
    const { attempter, records, undecryptable, box } = setup();
    await attempter.attempt(
      undecryptable({ secretSealed: box.encrypt(SECRET, 'wh_1'), previousSecretSealed: 'v1.not.a.box', previousSecretExpiresAt: new Date(Date.now() + 60_000) }),
      'worker-1',
    );
    attempter.close();
    expect(records[0]).toMatchObject({ error: 'signing secret could not be decrypted', affectsWebhookHealth: false });
  });

  it('logs the fault at error level once per webhook, without the secret', async () => {
    const { attempter, errors, undecryptable } = setup();
    await attempter.attempt(undecryptable({ id: 'whd_1' }), 'worker-1');
    await attempter.attempt(undecryptable({ id: 'whd_2' }), 'worker-1');
    await attempter.attempt(undecryptable({ id: 'whd_3', webhookId: 'wh_2' }), 'worker-1');
    attempter.close();
    expect(errors).toHaveBeenCalledTimes(2);
    expect(errors.mock.calls.map(([fields]) => (fields as { webhookId: string }).webhookId)).toEqual(['wh_1', 'wh_2']);
    expect(errors.mock.calls[0][0]).toMatchObject({ err: 'signing secret could not be decrypted', deliveryId: 'whd_1' });
    expect(JSON.stringify(errors.mock.calls)).not.toContain(SECRET);
  });

  it('records any other fault before the request as an internal failure on the schedule, and logs what it was', async () => {
    const { attempter, records, errors, undecryptable, box } = setup();
    // A payload JSON cannot write: the request is never built.
    const payload = { id: 'evt_1', type: 'email.delivered', createdAt: '2026-11-26T00:00:00.000Z', mode: 'live', data: { size: BigInt(1) } } as ClaimedDelivery['payload'];
    await attempter.attempt(undecryptable({ secretSealed: box.encrypt(SECRET, 'wh_1'), payload }), 'worker-1');
    attempter.close();
    expect(records[0]).toMatchObject({ responseCode: null, error: INTERNAL_FAULT_MESSAGE, affectsWebhookHealth: false });
    expect(records[0].nextAttemptAt).not.toBeNull();
    expect(errors).toHaveBeenCalledTimes(1);
    expect(errors.mock.calls[0][0]).toMatchObject({ webhookId: 'wh_1', err: expect.stringContaining('BigInt') });
  });
});
