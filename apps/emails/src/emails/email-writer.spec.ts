import type { RequestContext } from '@mailroom/contracts';
import { EntityManager } from 'typeorm';
import { parseEmailInput } from './email-input.parser';
import { EmailToStore, EmailWriter } from './email-writer';
import { EmailsRepository } from './emails.repository';

const NOW = new Date('2026-11-23T10:00:00.000Z');
const ctx = (mode: 'live' | 'test'): RequestContext => ({ requestId: 'req_1', keyId: `key_${mode}`, mode, permissions: ['*'], domainRestrictions: [] });
const email = (mode: 'live' | 'test', to: string[]): EmailToStore => ({
  ctx: ctx(mode),
  parsed: parseEmailInput({ from: 'hi@acme.test', to, subject: 'Hello', text: 'Hi' }, '', NOW),
  now: NOW,
});

function makeWriter(suppressed: Record<string, string[]> = {}) {
  const callerManager = {} as EntityManager;
  const ownManager = {} as EntityManager;
  const repository = {
    dataSource: { manager: ownManager },
    suppressedAmong: jest.fn(async (_manager: EntityManager, mode: string, addresses: string[]) => new Set(addresses.filter((address) => suppressed[mode]?.includes(address)))),
    insert: jest.fn(async () => undefined),
    insertAtomically: jest.fn(async () => undefined),
  };
  return { writer: new EmailWriter(repository as unknown as EmailsRepository), repository, callerManager, ownManager };
}

describe(EmailWriter.name, () => {
  it('looks suppressions up once per mode, for every distinct recipient of the emails of that mode', async () => {
    const { writer, repository, ownManager } = makeWriter();
    await writer.writeAtomically([email('test', ['a@example.com', 'b@example.com']), email('test', ['B@example.com']), email('live', ['c@example.com'])]);
    expect(repository.suppressedAmong.mock.calls).toEqual([
      [ownManager, 'test', ['a@example.com', 'b@example.com']],
      [ownManager, 'live', ['c@example.com']],
    ]);
  });

  it("applies each mode's suppression list to its own emails only", async () => {
    const { writer } = makeWriter({ test: ['a@example.com'] });
    const [testEmail, liveEmail] = await writer.writeAtomically([email('test', ['a@example.com']), email('live', ['a@example.com'])]);
    expect(testEmail.email.status).toBe('suppressed');
    expect(testEmail.event.type).toBe('email.suppressed');
    expect(liveEmail.email.status).toBe('queued');
    expect(liveEmail.recipients.map((recipient) => recipient.status)).toEqual(['queued']);
  });

  it("writes atomically on its own, or with the manager of the caller's transaction", async () => {
    const { writer, repository, callerManager } = makeWriter();
    const alone = await writer.writeAtomically([email('test', ['a@example.com'])]);
    expect(repository.insertAtomically).toHaveBeenCalledWith(alone);
    const within = await writer.write(callerManager, [email('test', ['a@example.com'])]);
    expect(repository.insert).toHaveBeenCalledWith(callerManager, within);
    expect(repository.suppressedAmong).toHaveBeenLastCalledWith(callerManager, 'test', ['a@example.com']);
  });
});
