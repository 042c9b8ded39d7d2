import type { RequestContext } from '@mailroom/contracts';
import { RpcDeadline, RPC_BUDGET_HEADER } from '@mailroom/runtime';
import { headers as natsHeaders } from 'nats';
import { performance } from 'node:perf_hooks';
import { EntityManager } from 'typeorm';
import { parseEmailInput } from './email-input.parser';
import { CALLER_GONE } from './caller-gone';
import { emailsDroppedPastDeadline } from './dropped-sends-metrics';
import { EmailToStore, EmailWriter, everyWritten } from './email-writer';
import type { SendingDomainFence } from '../domain-usage/sending-domain-fence';
import { EmailsRepository, InsertBlockers, InsertRefusal } from './emails.repository';
import { SendingDomainDeleted } from './sending-domain-deleted';

const NOW = new Date('2026-11-23T10:00:00.000Z');
const ctx = (mode: 'live' | 'test'): RequestContext => ({ requestId: 'req_1', keyId: `key_${mode}`, mode, permissions: ['*'], domainRestrictions: [] });
const email = (mode: 'live' | 'test', to: string[]): EmailToStore => ({
  ctx: ctx(mode),
  parsed: parseEmailInput({ from: 'hi@acme.test', to, subject: 'Hello', text: 'Hi' }, '', NOW),
  now: NOW,
});

/** The deadline of a request read `agoMs` ago with a budget of `budgetMs`. */
function deadline(budgetMs: number, agoMs: number): RpcDeadline {
  const headers = natsHeaders();
  headers.set(RPC_BUDGET_HEADER, String(budgetMs));
  return RpcDeadline.fromHeaders(headers, performance.now() - agoMs)!;
}

const dropped = async () => (await emailsDroppedPastDeadline.get()).values.reduce((sum, sample) => sum + sample.value, 0);

function makeWriter(suppressed: Record<string, string[]> = {}, connect = async () => undefined) {
  const callerManager = {} as EntityManager;
  const ownManager = {} as EntityManager;
  // Like the database after the deletion of dom_gone passed its in-use check: the fence's query answers it.
  const fence = {
    deletedAmongQuery: jest.fn((domains: ReadonlyMap<string, string>, parameters: unknown[]) => {
      parameters.push([...domains.values()]);
      return 'deleted domains query';
    }),
  };
  const repository = {
    // A connection of its own for the write, as the pool hands one out.
    dataSource: { createQueryRunner: () => ({ connect, release: async () => undefined, manager: ownManager }) },
    // Like the statement: writes nothing when an address is suppressed or a domain deleted, and says which.
    insertUnless: jest.fn(async (_manager: EntityManager, _emails: unknown, blockers: InsertBlockers): Promise<InsertRefusal> => {
      const refusal: InsertRefusal = { suppressed: new Map(), deletedDomainIds: new Set() };
      for (const [mode, addresses] of blockers.suppressedAddresses) {
        const hits = addresses.filter((address) => suppressed[mode]?.includes(address));
        if (hits.length) refusal.suppressed.set(mode, new Set(hits));
      }
      const parameters: unknown[] = [];
      if (blockers.deletedDomains?.(parameters) === 'deleted domains query') {
        for (const id of parameters[0] as string[]) if (id === 'dom_gone') refusal.deletedDomainIds.add(id);
      }
      return refusal;
    }),
  };
  const writer = new EmailWriter(repository as unknown as EmailsRepository, fence as unknown as SendingDomainFence);
  return { writer, repository, fence, callerManager, ownManager };
}

describe(EmailWriter.name, () => {
  it('checks suppressions inside the insert, for every distinct recipient of the emails of each mode', async () => {
    const { writer, repository, ownManager } = makeWriter();
    const written = everyWritten(await writer.writeAtomically([email('test', ['a@example.com', 'b@example.com']), email('test', ['B@example.com']), email('live', ['c@example.com'])]));
    expect(repository.insertUnless).toHaveBeenCalledTimes(1);
    expect(repository.insertUnless).toHaveBeenCalledWith(ownManager, written, {
      suppressedAddresses: new Map([
        ['test', ['a@example.com', 'b@example.com']],
        ['live', ['c@example.com']],
      ]),
      deletedDomains: undefined,
    });
    // Nobody suppressed: that one statement wrote them.
    expect(written.map((created) => created.email.status)).toEqual(['queued', 'queued', 'queued']);
  });

  it("builds again and writes when the insert found a suppressed address, applying each mode's list to its own emails only", async () => {
    const { writer, repository, ownManager } = makeWriter({ test: ['a@example.com'] });
    const [testEmail, liveEmail] = everyWritten(await writer.writeAtomically([email('test', ['a@example.com']), email('live', ['a@example.com'])]));
    expect(repository.insertUnless).toHaveBeenLastCalledWith(ownManager, [testEmail, liveEmail], { suppressedAddresses: new Map(), deletedDomains: undefined });
    expect(testEmail.email.status).toBe('suppressed');
    expect(testEmail.events.map((event) => event.type)).toEqual(['email.suppressed']);
    expect(liveEmail.email.status).toBe('queued');
    expect(liveEmail.recipients.map((recipient) => recipient.status)).toEqual(['queued']);
  });

  it("writes within the caller's transaction with its manager", async () => {
    const { writer, repository, callerManager } = makeWriter({ test: ['b@example.com'] });
    const [within] = await writer.write(callerManager, [email('test', ['a@example.com', 'b@example.com'])]);
    expect(repository.insertUnless.mock.calls.map(([manager]) => manager)).toEqual([callerManager, callerManager]);
    expect(repository.insertUnless.mock.calls[1][1]).toEqual([within]);
    expect(within.recipients.map((recipient) => [recipient.address, recipient.status])).toEqual([
      ['a@example.com', 'queued'],
      ['b@example.com', 'suppressed'],
    ]);
    expect(within.events.map((event) => [event.type, (event.data as { recipient?: string }).recipient])).toEqual([
      ['email.queued', undefined],
      ['email.suppressed', 'b@example.com'],
    ]);
  });

  it("has each statement of a live email's write take its domain's lock and look for its deletion, with no transaction of its own", async () => {
    const { writer, repository, fence, ownManager } = makeWriter({ live: ['b@example.com'] });
    await writer.writeAtomically([email('test', ['a@example.com']), { ...email('live', ['b@example.com']), fromDomainId: 'dom_kept' }]);
    // Two statements (the first found b@ suppressed): each outside a transaction, each fenced on its own.
    expect(repository.insertUnless.mock.calls.map(([manager]) => manager)).toEqual([ownManager, ownManager]);
    expect(fence.deletedAmongQuery.mock.calls.map(([domains]) => domains)).toEqual([new Map([['acme.test', 'dom_kept']]), new Map([['acme.test', 'dom_kept']])]);
  });

  it('writes nothing when the deletion of a live email\'s domain passed its in-use check, naming the first such email', async () => {
    const { writer, repository, callerManager } = makeWriter();
    const writing = writer.write(callerManager, [
      { ...email('live', ['a@example.com']), fromDomainId: 'dom_kept' },
      { ...email('live', ['b@example.com']), fromDomainId: 'dom_gone' },
    ]);
    await expect(writing).rejects.toEqual(expect.objectContaining({ constructor: SendingDomainDeleted, index: 1, domain: 'acme.test' }));
    // The one statement that found the deletion wrote nothing, and nothing was written after it.
    expect(repository.insertUnless).toHaveBeenCalledTimes(1);
  });

  it('writes only the emails whose callers still wait once it holds its connection, and answers CALLER_GONE for the others', async () => {
    const { writer, repository } = makeWriter();
    const before = await dropped();
    const [late, waited, noDeadline] = await writer.writeAtomically([
      { ...email('test', ['late@example.com']), deadline: deadline(1000, 1000) },
      { ...email('test', ['waited@example.com']), deadline: deadline(60_000, 1000) },
      email('test', ['any@example.com']),
    ]);
    expect(late).toBe(CALLER_GONE);
    expect(everyWritten([waited, noDeadline]).map((created) => created.recipients.map((recipient) => recipient.address))).toEqual([
      ['waited@example.com'],
      ['any@example.com'],
    ]);
    expect(repository.insertUnless.mock.calls[0][1]).toEqual([waited, noDeadline]);
    expect((await dropped()) - before).toBe(1);
    // A caller told 503 for a send that was not written: the request's answer, which nobody reads, says so.
    expect(() => everyWritten([late, waited])).toThrow(expect.objectContaining({ code: 'service_unavailable' }));
  });

  it('runs no statement when every caller has stopped waiting', async () => {
    const { writer, repository } = makeWriter();
    const written = await writer.writeAtomically([{ ...email('test', ['a@example.com']), deadline: deadline(0, 0) }]);
    expect(written).toEqual([CALLER_GONE]);
    expect(repository.insertUnless).not.toHaveBeenCalled();
  });

  it('looks at the deadline once it holds its connection: a caller who gave up while the write waited for one gets nothing written', async () => {
    let gaveUp = false;
    // The pool hands out a connection only after the caller has stopped waiting.
    const { writer, repository } = makeWriter({}, async () => {
      gaveUp = true;
    });
    const whileWaiting = { passed: () => gaveUp } as RpcDeadline;
    expect(await writer.writeAtomically([{ ...email('test', ['a@example.com']), deadline: whileWaiting }])).toEqual([CALLER_GONE]);
    expect(repository.insertUnless).not.toHaveBeenCalled();
  });
});
