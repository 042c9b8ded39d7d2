import { performance } from 'node:perf_hooks';
import { Injectable } from '@nestjs/common';
import type { RequestContext } from '@mailroom/contracts';
import { onOwnConnection } from '@mailroom/database';
import { callerStoppedWaiting, RpcDeadline } from '@mailroom/runtime';
import { EntityManager } from 'typeorm';
import { CALLER_GONE, callerGone } from './caller-gone';
import { SendingDomainFence } from '../domain-usage/sending-domain-fence';
import { ParsedEmail } from './email-input.parser';
import { EmailsRepository } from './emails.repository';
import { buildNewEmail, NewEmail } from './new-email.builder';
import { SendingDomainDeleted } from './sending-domain-deleted';

/** One accepted email on its way into the database; requests of different keys may share a write. */
export interface EmailToStore {
  ctx: RequestContext;
  parsed: ParsedEmail;
  now: Date;
  /** A live email's domain, by the id the domains service gave it when the send checked it (test mode has none). */
  fromDomainId?: string;
  /** When the send's caller stops waiting for its answer; none: it waits for ever. */
  deadline?: RpcDeadline;
}

/**
 * Writes accepted emails: the emails, their recipients and their outbox
 * events together in one statement, which also checks the recipients
 * against the suppression lists and, for live emails, under their domains'
 * locks, whether a domain's deletion passed its in-use check since the send
 * found it verified (then SendingDomainDeleted, and nothing written).
 */
@Injectable()
export class EmailWriter {
  constructor(
    private readonly repository: EmailsRepository,
    private readonly fence: SendingDomainFence,
  ) {}

  /** Inside the caller's transaction, which commits them with whatever else it writes. */
  write(manager: EntityManager, emails: EmailToStore[]): Promise<NewEmail[]> {
    return this.writeWith(manager, emails);
  }

  /**
   * Committed when this resolves, all or nothing, without a transaction of the caller's: one statement is atomic
   * by itself, and holds the live domains' locks until it commits. An email whose caller stopped waiting while the
   * write waited for a connection is not written: CALLER_GONE in its place.
   */
  async writeAtomically(emails: EmailToStore[]): Promise<Array<NewEmail | typeof CALLER_GONE>> {
    const created = await onOwnConnection(this.repository.dataSource, async (manager) => {
      const now = performance.now();
      const awaited = emails.filter((email) => !callerGone(email.deadline, 1, now));
      const written = awaited.length ? await this.writeWith(manager, awaited) : [];
      return new Map(awaited.map((email, index) => [email, written[index]]));
    });
    return emails.map((email) => created.get(email) ?? CALLER_GONE);
  }

  /**
   * Nearly always no recipient is suppressed, so the emails are built as if
   * none were, and the insert statement itself checks the lists: one round
   * trip, where asking first cost two (and about 3 ms of a send's p50 under
   * load). Only when the check finds an address are they built again knowing
   * which, and written then. Either way the check sees what a READ COMMITTED
   * transaction would.
   */
  private async writeWith(manager: EntityManager, emails: EmailToStore[]): Promise<NewEmail[]> {
    const domains = liveDomains(emails);
    // Each statement takes the domains' locks and looks for their deletions itself: the second one may run after the
    // first's own transaction ended (outside a caller's), and a deletion's in-use check in between.
    const deletedDomains = domains.size ? (parameters: unknown[]) => this.fence.deletedAmongQuery(domains, parameters) : undefined;
    const hopeful = buildAll(emails, new Map());
    const first = await this.repository.insertUnless(manager, hopeful, { suppressedAddresses: addressesByMode(emails), deletedDomains });
    refuseDeletedDomains(emails, first.deletedDomainIds);
    if (!first.suppressed.size) return hopeful;
    const created = buildAll(emails, first.suppressed);
    refuseDeletedDomains(emails, (await this.repository.insertUnless(manager, created, { suppressedAddresses: new Map(), deletedDomains })).deletedDomainIds);
    return created;
  }
}

/** What writeAtomically wrote; if it left one out, the 503 its caller (who stopped waiting) would have got. */
export function everyWritten(written: Array<NewEmail | typeof CALLER_GONE>): NewEmail[] {
  if (written.includes(CALLER_GONE)) throw callerStoppedWaiting();
  return written as NewEmail[];
}

/** The live emails' from domains, name → the id the send found verified (test mode has none). */
function liveDomains(emails: EmailToStore[]): Map<string, string> {
  const domains = new Map<string, string>();
  for (const { parsed, fromDomainId } of emails) if (fromDomainId) domains.set(parsed.from.domain, fromDomainId);
  return domains;
}

/** Names the first email whose domain's deletion passed its in-use check since its send found it verified. */
function refuseDeletedDomains(emails: EmailToStore[], deletedDomainIds: ReadonlySet<string>): void {
  if (!deletedDomainIds.size) return;
  const index = emails.findIndex((item) => item.fromDomainId !== undefined && deletedDomainIds.has(item.fromDomainId));
  if (index >= 0) throw new SendingDomainDeleted(index, emails[index].parsed.from.domain);
}

const NONE_SUPPRESSED: ReadonlySet<string> = new Set();

function buildAll(emails: EmailToStore[], suppressedByMode: ReadonlyMap<string, ReadonlySet<string>>): NewEmail[] {
  return emails.map(({ ctx, parsed, now }) => buildNewEmail(parsed, ctx, now, suppressedByMode.get(ctx.mode) ?? NONE_SUPPRESSED));
}

/** Every distinct recipient address of the emails, by the mode whose suppression list applies. */
function addressesByMode(emails: EmailToStore[]): Map<string, string[]> {
  const byMode = new Map<string, Set<string>>();
  for (const { ctx, parsed } of emails) {
    let addresses = byMode.get(ctx.mode);
    if (!addresses) byMode.set(ctx.mode, (addresses = new Set()));
    for (const address of [...parsed.to, ...parsed.cc, ...parsed.bcc]) addresses.add(address.normalized);
  }
  return new Map([...byMode].map(([mode, addresses]) => [mode, [...addresses]]));
}
