import type { RequestContext } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import type { IdempotencyKeyWait, RpcDeadline } from '@mailroom/runtime';
import type { DataSource, EntityManager } from 'typeorm';
import { EmailSendingService } from './email-sending.service';
import type { EmailToStore, EmailWriter } from './email-writer';
import type { IdempotencyStore } from './idempotency.store';
import type { SenderPolicy } from './sender-policy';
import { SendingDomainDeleted } from './sending-domain-deleted';
import type { SingleSendCommitter } from './single-send.committer';

const ctx: RequestContext = { requestId: 'req_1', keyId: 'key_live', mode: 'live', permissions: ['*'], domainRestrictions: [] };
const input = (from: string) => ({ from, to: 'a@example.com', subject: 'Hello', text: 'Hi' });

/** A service whose domains were all verified, one of them (gone.test) deleted before its email came to be written. */
function makeService() {
  const refuseGone = async (emails: EmailToStore[]) => {
    const index = emails.findIndex((item) => item.fromDomainId === 'dom_gone');
    throw new SendingDomainDeleted(index, emails[index].parsed.from.domain);
  };
  const writer = { writeAtomically: jest.fn(refuseGone) };
  const singleSends = { commit: jest.fn((email: EmailToStore) => refuseGone([email])) };
  const policy = { assertMaySendFrom: jest.fn(async () => new Map([['kept.test', 'dom_kept'], ['gone.test', 'dom_gone']])) };
  const service = new EmailSendingService(
    {} as DataSource,
    writer as unknown as EmailWriter,
    singleSends as unknown as SingleSendCommitter,
    {} as IdempotencyStore,
    policy as unknown as SenderPolicy,
    {} as IdempotencyKeyWait,
  );
  return { service, singleSends };
}

describe(EmailSendingService.name, () => {
  it('answers a send whose domain was deleted as it was written with 422 naming from, and hands the write its domain id', async () => {
    const { service, singleSends } = makeService();
    const refused = service.send({ ctx, input: input('hi@gone.test') });
    await expect(refused).rejects.toMatchObject({ constructor: DomainError, code: 'validation_error' });
    await expect(refused).rejects.toThrow(/^from: the domain 'gone.test' is no longer a sending domain/);
    expect(singleSends.commit.mock.calls[0][0].fromDomainId).toBe('dom_gone');
  });

  it('names the email of a batch whose domain was deleted as it was written', async () => {
    const { service } = makeService();
    const refused = service.batch({ ctx, inputs: [input('hi@kept.test'), input('hi@gone.test')] });
    await expect(refused).rejects.toThrow(/^emails\[1\]\.from: the domain 'gone.test' is no longer a sending domain/);
    await expect(refused).rejects.toMatchObject({ constructor: DomainError, code: 'validation_error' });
  });

  it('claims no Idempotency-Key and writes nothing when the caller stopped waiting before the keyed send held its connection', async () => {
    const claim = jest.fn();
    const write = jest.fn();
    const transaction = jest.fn(async (work: (manager: EntityManager) => Promise<unknown>) => work({} as EntityManager));
    const service = new EmailSendingService(
      { transaction } as unknown as DataSource,
      { write } as unknown as EmailWriter,
      {} as SingleSendCommitter,
      { replay: async () => null, claim } as unknown as IdempotencyStore,
      { assertMaySendFrom: async () => new Map([['kept.test', 'dom_kept']]) } as unknown as SenderPolicy,
      { untilFree: (_key: string, _since: Date, attempt: () => Promise<unknown>) => attempt() } as unknown as IdempotencyKeyWait,
    );
    const gone = { passed: () => true } as RpcDeadline;
    const idempotency = { key: 'k1', requestHash: 'h' };
    for (const sending of [service.send({ ctx, input: input('hi@kept.test'), idempotency }, gone), service.batch({ ctx, inputs: [input('hi@kept.test')], idempotency }, gone)]) {
      await expect(sending).rejects.toMatchObject({ constructor: DomainError, code: 'service_unavailable' });
    }
    expect(transaction).toHaveBeenCalledTimes(2);
    expect([claim, write].map((step) => step.mock.calls.length)).toEqual([0, 0]);
  });
});
