import { Injectable } from '@nestjs/common';
import type { RequestContext } from '@mailroom/contracts';
import { EntityManager } from 'typeorm';
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
}

/**
 * Writes accepted emails: the emails, their recipients and their outbox
 * events together in one statement, which also checks the recipients
 * against the suppression lists. Live emails are written under their
 * domains' locks, and refused (SendingDomainDeleted) when a domain's deletion
 * passed its in-use check since the send found it verified.
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
   * by itself. Live emails take a transaction, which holds their domains' locks until they are committed.
   */
  writeAtomically(emails: EmailToStore[]): Promise<NewEmail[]> {
    const { dataSource } = this.repository;
    if (!emails.some((item) => item.fromDomainId)) return this.writeWith(dataSource.manager, emails);
    return dataSource.transaction((manager) => this.writeWith(manager, emails));
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
    await this.refuseDeletedDomains(manager, emails);
    const hopeful = buildAll(emails, new Map());
    const suppressed = await this.repository.insertUnlessSuppressed(manager, hopeful, addressesByMode(emails));
    if (!suppressed.size) return hopeful;
    const created = buildAll(emails, suppressed);
    await this.repository.insert(manager, created);
    return created;
  }

  /** Within the write's transaction: takes the live domains' locks, which the in-use checks of their deletions wait for. */
  private async refuseDeletedDomains(manager: EntityManager, emails: EmailToStore[]): Promise<void> {
    const domains = new Map<string, string>();
    for (const { parsed, fromDomainId } of emails) if (fromDomainId) domains.set(parsed.from.domain, fromDomainId);
    if (!domains.size) return;
    const deleted = await this.fence.deletedAmong(manager, domains);
    const index = emails.findIndex((item) => item.fromDomainId !== undefined && deleted.has(item.fromDomainId));
    if (index >= 0) throw new SendingDomainDeleted(index, emails[index].parsed.from.domain);
  }
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
