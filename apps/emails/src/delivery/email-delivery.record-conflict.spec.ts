import type { MailroomConfig } from '@mailroom/config';
import type { AttemptRecorder } from './attempt-recorder';
import type { ClaimedEmail, DueRecipient } from './delivery.repository';
import { deliveryOutcomes } from './delivery-metrics';
import { EmailDelivery } from './email-delivery.service';
import type { MessageBuilder } from './message/message-builder';
import type { SenderIdentityCache } from './sender-identity.cache';
import type { DeliveryTransport } from './smtp/delivery-transport';

// A test-mode email: its outcome is simulated, so only the recorder is involved.
const email = { id: 'email_1', mode: 'test', fromAddress: 'hi@acme.test', to: ['bob@example.test'], cc: [], bcc: [], subject: 's', tags: [] } as unknown as ClaimedEmail;
const due: DueRecipient[] = [{ address: 'bob@example.test', kind: 'to', status: 'queued', attempts: 0, suppressed: false }];
const deliveryRecordingWith = (record: jest.Mock) =>
  new EmailDelivery(
    { record } as unknown as AttemptRecorder,
    {} as SenderIdentityCache,
    {} as MessageBuilder,
    { acceptedStatus: 'delivered' } as DeliveryTransport,
    {} as never,
    { DELIVERY_RETRY_SCHEDULE: [60_000], DELIVERY_LEASE_MS: 60_000 } as unknown as MailroomConfig,
  );

/**
 * An attempt's outcome is known once the server answered. A record Postgres aborted to break a deadlock (or
 * a serialization conflict) rolled back for sure, and the same write commits when run again; thrown out of
 * deliver() instead, it left the email to its lease, and the message the server had already taken was sent
 * a second time when the lease ran out.
 */
describe('recording an attempt that Postgres aborted over a conflict', () => {
  it.each([
    ['deadlock detected', '40P01'],
    ['could not serialize access due to concurrent update', '40001'],
  ])('writes it again (%s) rather than leaving the email to its lease', async (message, code) => {
    const record = jest.fn().mockRejectedValueOnce(Object.assign(new Error(message), { code })).mockResolvedValueOnce(new Set(['bob@example.test']));
    await expect(deliveryRecordingWith(record).deliver(email, due, 'w1')).resolves.toBeUndefined();
    expect(record).toHaveBeenCalledTimes(2);
    expect(record.mock.calls[1][1].updates).toEqual([expect.objectContaining({ address: 'bob@example.test', status: 'delivered' })]);
  });

  it('still throws any other error at once', async () => {
    const record = jest.fn().mockRejectedValue(Object.assign(new Error('value too long'), { code: '22001' }));
    await expect(deliveryRecordingWith(record).deliver(email, due, 'w1')).rejects.toThrow('value too long');
    expect(record).toHaveBeenCalledTimes(1);
  });
});

/**
 * The outcome counter says what happened to recipients. A recipient a bounce report settled while its attempt
 * was in flight keeps the report's outcome (the record writes only recipients still waiting), so the attempt's
 * outcome never happened: counted, a dashboard showed a delivery for a recipient that reads bounced.
 */
describe('counting the outcomes an attempt recorded', () => {
  const delivered = async () => (await deliveryOutcomes.get()).values.find((value) => value.labels.outcome === 'delivered' && value.labels.mode === 'test')?.value ?? 0;

  it('counts a recipient whose outcome the record applied', async () => {
    const before = await delivered();
    await deliveryRecordingWith(jest.fn().mockResolvedValue(new Set(['bob@example.test']))).deliver(email, due, 'w1');
    expect(await delivered()).toBe(before + 1);
  });

  it('does not count a recipient whose outcome the record dropped, since it was settled already', async () => {
    const before = await delivered();
    await deliveryRecordingWith(jest.fn().mockResolvedValue(new Set())).deliver(email, due, 'w1');
    expect(await delivered()).toBe(before);
  });

  it('does not count an attempt whose email another worker took over', async () => {
    const before = await delivered();
    await deliveryRecordingWith(jest.fn().mockResolvedValue(null)).deliver(email, due, 'w1');
    expect(await delivered()).toBe(before);
  });
});
