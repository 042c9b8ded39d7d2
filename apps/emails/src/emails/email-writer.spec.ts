import type { RequestContext } from '@mailroom/contracts';
import { EntityManager } from 'typeorm';
import { parseEmailInput } from './email-input.parser';
import { EmailToStore, EmailWriter } from './email-writer';
import type { SendingDomainFence } from '../domain-usage/sending-domain-fence';
import { EmailsRepository } from './emails.repository';
import { SendingDomainDeleted } from './sending-domain-deleted';

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
  const transactionManager = {} as EntityManager;
  const repository = {
    dataSource: { manager: ownManager, transaction: jest.fn(async (work: (manager: EntityManager) => Promise<unknown>) => work(transactionManager)) },
    // Like the statement: writes nothing when an address is suppressed, and answers the suppressed ones by mode.
    insertUnlessSuppressed: jest.fn(async (_manager: EntityManager, _emails: unknown, addressesByMode: Map<string, string[]>) => {
      const found = new Map<string, Set<string>>();
      for (const [mode, addresses] of addressesByMode) {
        const hits = addresses.filter((address) => suppressed[mode]?.includes(address));
        if (hits.length) found.set(mode, new Set(hits));
      }
      return found;
    }),
    insert: jest.fn(async () => undefined),
  };
  // Like the database after the deletion of dom_gone passed its in-use check.
  const fence = { deletedAmong: jest.fn(async (_manager: EntityManager, domains: ReadonlyMap<string, string>) => new Set([...domains.values()].filter((id) => id === 'dom_gone'))) };
  const writer = new EmailWriter(repository as unknown as EmailsRepository, fence as unknown as SendingDomainFence);
  return { writer, repository, fence, callerManager, ownManager, transactionManager };
}

describe(EmailWriter.name, () => {
  it('checks suppressions inside the insert, for every distinct recipient of the emails of each mode', async () => {
    const { writer, repository, ownManager } = makeWriter();
    const written = await writer.writeAtomically([email('test', ['a@example.com', 'b@example.com']), email('test', ['B@example.com']), email('live', ['c@example.com'])]);
    expect(repository.insertUnlessSuppressed).toHaveBeenCalledWith(
      ownManager,
      written,
      new Map([
        ['test', ['a@example.com', 'b@example.com']],
        ['live', ['c@example.com']],
      ]),
    );
    // Nobody suppressed: that one statement wrote them.
    expect(repository.insert).not.toHaveBeenCalled();
    expect(written.map((created) => created.email.status)).toEqual(['queued', 'queued', 'queued']);
  });

  it("builds again and writes when the insert found a suppressed address, applying each mode's list to its own emails only", async () => {
    const { writer, repository, ownManager } = makeWriter({ test: ['a@example.com'] });
    const [testEmail, liveEmail] = await writer.writeAtomically([email('test', ['a@example.com']), email('live', ['a@example.com'])]);
    expect(repository.insert).toHaveBeenCalledWith(ownManager, [testEmail, liveEmail]);
    expect(testEmail.email.status).toBe('suppressed');
    expect(testEmail.events.map((event) => event.type)).toEqual(['email.suppressed']);
    expect(liveEmail.email.status).toBe('queued');
    expect(liveEmail.recipients.map((recipient) => recipient.status)).toEqual(['queued']);
  });

  it("writes within the caller's transaction with its manager", async () => {
    const { writer, repository, callerManager } = makeWriter({ test: ['b@example.com'] });
    const [within] = await writer.write(callerManager, [email('test', ['a@example.com', 'b@example.com'])]);
    expect(repository.insertUnlessSuppressed.mock.calls[0][0]).toBe(callerManager);
    expect(repository.insert).toHaveBeenCalledWith(callerManager, [within]);
    expect(within.recipients.map((recipient) => [recipient.address, recipient.status])).toEqual([
      ['a@example.com', 'queued'],
      ['b@example.com', 'suppressed'],
    ]);
    expect(within.events.map((event) => [event.type, (event.data as { recipient?: string }).recipient])).toEqual([
      ['email.queued', undefined],
      ['email.suppressed', 'b@example.com'],
    ]);
  });

  it('writes live emails in a transaction of their own, after checking their domains under their locks', async () => {
    const { writer, repository, fence, transactionManager } = makeWriter();
    await writer.writeAtomically([email('test', ['a@example.com']), { ...email('live', ['b@example.com']), fromDomainId: 'dom_kept' }]);
    expect(fence.deletedAmong).toHaveBeenCalledWith(transactionManager, new Map([['acme.test', 'dom_kept']]));
    expect(repository.insertUnlessSuppressed.mock.calls[0][0]).toBe(transactionManager);
  });

  it('writes nothing when the deletion of a live email\'s domain passed its in-use check, naming the first such email', async () => {
    const { writer, repository, callerManager } = makeWriter();
    const writing = writer.write(callerManager, [
      { ...email('live', ['a@example.com']), fromDomainId: 'dom_kept' },
      { ...email('live', ['b@example.com']), fromDomainId: 'dom_gone' },
    ]);
    await expect(writing).rejects.toEqual(expect.objectContaining({ constructor: SendingDomainDeleted, index: 1, domain: 'acme.test' }));
    expect(repository.insertUnlessSuppressed).not.toHaveBeenCalled();
  });
});
