import { generateKeyPairSync } from 'node:crypto';
import type { MailroomConfig } from '@mailroom/config';
import type { AttemptRecorder } from './attempt-recorder';
import type { AttemptRecord } from './attempts.repository';
import type { ClaimedEmail } from './delivery.repository';
import { EmailDelivery } from './email-delivery.service';
import type { MessageBuilder } from './message/message-builder';
import type { SenderIdentityCache } from './sender-identity.cache';
import type { DeliveryTransport } from './smtp/delivery-transport';

/**
 * README: a build thread that dies "fails the builds it held, which are
 * retried like any failed attempt". The failure once escaped deliver():
 * nothing was recorded (no attempt, no deferred state, no nextAttemptAt, no
 * email.delivery_delayed), and a build that always failed was retried at the
 * lease's pace for ever, never reaching a final state.
 */
describe('a failed message build', () => {
  it('is recorded as a temporary failure (deferred, with its next attempt)', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const records: AttemptRecord[] = [];
    const recorder = { record: jest.fn(async (_owner: string, record: AttemptRecord) => (records.push(record), new Set(record.updates.map((update) => update.address)))) } as unknown as AttemptRecorder;
    const identities = {
      get: async () => ({
        domainId: 'd', name: 'acme.test', status: 'verified', trackingBaseUrl: 'https://t.acme.test', openTracking: false, clickTracking: false,
        dkim: { selector: 's', privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string },
      }),
    } as unknown as SenderIdentityCache;
    const messages = { build: () => Promise.reject(new Error('the message build thread stopped (exit code 1)')) } as unknown as MessageBuilder;
    const transport = { acceptedStatus: 'delivered', deliver: jest.fn(), close: () => undefined } as unknown as DeliveryTransport;
    const config = { DELIVERY_RETRY_SCHEDULE: [60_000, 300_000], DELIVERY_LEASE_MS: 60_000 } as unknown as MailroomConfig;
    const delivery = new EmailDelivery(recorder, identities, messages, transport, { sign: () => 'x', verify: () => null } as never, config);
    const email = {
      id: 'email_1', mode: 'live', fromAddress: 'hi@acme.test', fromEmail: 'hi@acme.test', fromDomain: 'acme.test', to: ['bob@example.test'], cc: [], bcc: [], replyTo: [],
      subject: 's', html: null, text: 'x', headers: {}, attachments: [], tags: [], messageId: '<email_1@acme.test>', originatedAt: new Date(), attempts: 0, deliveredAt: null,
      previousStatus: 'queued', trackOpens: null, trackClicks: null,
    } as ClaimedEmail;

    await expect(delivery.deliver(email, [{ address: 'bob@example.test', kind: 'to', status: 'queued', attempts: 0, suppressed: false }], 'w1')).resolves.toBeUndefined();
    expect(records).toHaveLength(1);
    expect(records[0].updates[0]).toMatchObject({ address: 'bob@example.test', status: 'deferred', attempts: 1, smtpReply: expect.stringContaining('the message build thread stopped') });
    expect(transport.deliver).not.toHaveBeenCalled();
  });
});
