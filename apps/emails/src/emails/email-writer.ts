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
 * Writes accepted emails: checks their recipients against the suppression
 * list, then inserts the emails, their recipients and their outbox events
 * together, in one statement whenever they fit.
 */
@Injectable()
export class EmailWriter {
  constructor(private readonly repository: EmailsRepository) {}

  /** Inside the caller's transaction, which commits them with whatever else it writes. */
  async write(manager: EntityManager, emails: EmailToStore[]): Promise<NewEmail[]> {
    const created = await this.build(manager, emails);
    await this.repository.insert(manager, created);
    return created;
  }

  /**
   * Committed when this resolves, all or nothing, without a transaction of
   * the caller's. Nearly always no recipient is suppressed, so the emails are
   * built as if none were, and the insert statement itself checks the lists:
   * one round trip, where asking first cost two (and about 3 ms of a send's
   * p50 under load). Only when the check finds an address are they built
   * again knowing which, and written then. Either way the check sees what a
   * READ COMMITTED transaction would.
   */
  async writeAtomically(emails: EmailToStore[]): Promise<NewEmail[]> {
    const addresses = addressesByMode(emails);
    const hopeful = buildAll(emails, new Map());
    const suppressed = await this.repository.insertAtomicallyUnlessSuppressed(hopeful, addresses);
    if (!suppressed.size) return hopeful;
    const created = buildAll(emails, suppressed);
    await this.repository.insertAtomically(created);
    return created;
  }

  private async build(manager: EntityManager, emails: EmailToStore[]): Promise<NewEmail[]> {
    const suppressed = new Map<string, Set<string>>();
    // Suppression lists are per mode, so one lookup per mode present (nearly always one).
    for (const [mode, addresses] of addressesByMode(emails)) suppressed.set(mode, await this.repository.suppressedAmong(manager, mode, addresses));
    return buildAll(emails, suppressed);
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
