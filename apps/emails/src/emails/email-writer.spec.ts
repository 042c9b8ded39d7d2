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
  const suppressedAmong = (mode: string, addresses: string[]) => new Set(addresses.filter((address) => suppressed[mode]?.includes(address)));
  const repository = {
    dataSource: { manager: ownManager },
    suppressedAmong: jest.fn(async (_manager: EntityManager, mode: string, addresses: string[]) => suppressedAmong(mode, addresses)),
    // Like the statement: writes nothing when an address is suppressed, and answers the suppressed ones by mode.
    insertAtomicallyUnlessSuppressed: jest.fn(async (_emails: unknown, addressesByMode: Map<string, string[]>) => {
      const found = new Map([...addressesByMode].map(([mode, addresses]) => [mode, suppressedAmong(mode, addresses)]).filter(([, set]) => (set as Set<string>).size) as Array<[string, Set<string>]>);
      return found;
    }),
    insert: jest.fn(async () => undefined),
    insertAtomically: jest.fn(async () => undefined),
  };
  return { writer: new EmailWriter(repository as unknown as EmailsRepository), repository, callerManager, ownManager };
}

describe(EmailWriter.name, () => {
  it('checks suppressions inside the insert, once per mode, for every distinct recipient of the emails of that mode', async () => {
    const { writer, repository } = makeWriter();
    const written = await writer.writeAtomically([email('test', ['a@example.com', 'b@example.com']), email('test', ['B@example.com']), email('live', ['c@example.com'])]);
    expect(repository.insertAtomicallyUnlessSuppressed).toHaveBeenCalledWith(
      written,
      new Map([
        ['test', ['a@example.com', 'b@example.com']],
        ['live', ['c@example.com']],
      ]),
    );
    // Nobody suppressed: that one statement wrote them, and nothing asked the lists on its own.
    expect(repository.insertAtomically).not.toHaveBeenCalled();
    expect(repository.suppressedAmong).not.toHaveBeenCalled();
    expect(written.map((created) => created.email.status)).toEqual(['queued', 'queued', 'queued']);
  });

  it("builds again and writes when the insert found a suppressed address, applying each mode's list to its own emails only", async () => {
    const { writer, repository } = makeWriter({ test: ['a@example.com'] });
    const [testEmail, liveEmail] = await writer.writeAtomically([email('test', ['a@example.com']), email('live', ['a@example.com'])]);
    expect(repository.insertAtomically).toHaveBeenCalledWith([testEmail, liveEmail]);
    expect(testEmail.email.status).toBe('suppressed');
    expect(testEmail.event.type).toBe('email.suppressed');
    expect(liveEmail.email.status).toBe('queued');
    expect(liveEmail.recipients.map((recipient) => recipient.status)).toEqual(['queued']);
  });

  it("looks suppressions up first inside the caller's transaction, and writes with its manager", async () => {
    const { writer, repository, callerManager } = makeWriter({ test: ['b@example.com'] });
    const [within] = await writer.write(callerManager, [email('test', ['a@example.com', 'b@example.com'])]);
    expect(repository.suppressedAmong).toHaveBeenCalledWith(callerManager, 'test', ['a@example.com', 'b@example.com']);
    expect(repository.insert).toHaveBeenCalledWith(callerManager, [within]);
    expect(within.recipients.map((recipient) => [recipient.address, recipient.status])).toEqual([
      ['a@example.com', 'queued'],
      ['b@example.com', 'suppressed'],
    ]);
  });
});
