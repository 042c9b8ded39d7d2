import { Injectable } from '@nestjs/common';
import type { RequestContext } from '@mailroom/contracts';
import { EntityManager } from 'typeorm';
import { ParsedEmail } from './email-input.parser';
import { EmailsRepository } from './emails.repository';
import { buildNewEmail, NewEmail } from './new-email.builder';

/** One accepted email on its way into the database; requests of different keys may share a write. */
export interface EmailToStore {
  ctx: RequestContext;
  parsed: ParsedEmail;
  now: Date;
}

/**
 * Writes accepted emails: the emails, their recipients and their outbox
 * events together in one statement, which also checks the recipients
 * against the suppression lists.
 */
@Injectable()
export class EmailWriter {
  constructor(private readonly repository: EmailsRepository) {}

  /** Inside the caller's transaction, which commits them with whatever else it writes. */
  write(manager: EntityManager, emails: EmailToStore[]): Promise<NewEmail[]> {
    return this.writeWith(manager, emails);
  }

  /** Committed when this resolves, all or nothing, without a transaction of the caller's: one statement is atomic by itself. */
  writeAtomically(emails: EmailToStore[]): Promise<NewEmail[]> {
    return this.writeWith(this.repository.dataSource.manager, emails);
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
    const hopeful = buildAll(emails, new Map());
    const suppressed = await this.repository.insertUnlessSuppressed(manager, hopeful, addressesByMode(emails));
    if (!suppressed.size) return hopeful;
    const created = buildAll(emails, suppressed);
    await this.repository.insert(manager, created);
    return created;
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
