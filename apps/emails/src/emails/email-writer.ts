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
   * the caller's. The suppression check runs on its own beforehand; inside a
   * READ COMMITTED transaction it would see no more than it does here.
   */
  async writeAtomically(emails: EmailToStore[]): Promise<NewEmail[]> {
    const created = await this.build(this.repository.dataSource.manager, emails);
    await this.repository.insertAtomically(created);
    return created;
  }

  private async build(manager: EntityManager, emails: EmailToStore[]): Promise<NewEmail[]> {
    const suppressed = await this.suppressedByMode(manager, emails);
    return emails.map(({ ctx, parsed, now }) => buildNewEmail(parsed, ctx, now, suppressed.get(ctx.mode)!));
  }

  /** Suppression lists are per mode, so one lookup per mode present (nearly always one). */
  private async suppressedByMode(manager: EntityManager, emails: EmailToStore[]): Promise<Map<string, Set<string>>> {
    const addressesByMode = new Map<string, Set<string>>();
    for (const { ctx, parsed } of emails) {
      let addresses = addressesByMode.get(ctx.mode);
      if (!addresses) addressesByMode.set(ctx.mode, (addresses = new Set()));
      for (const address of [...parsed.to, ...parsed.cc, ...parsed.bcc]) addresses.add(address.normalized);
    }
    const suppressed = new Map<string, Set<string>>();
    for (const [mode, addresses] of addressesByMode) suppressed.set(mode, await this.repository.suppressedAmong(manager, mode, [...addresses]));
    return suppressed;
  }
}
