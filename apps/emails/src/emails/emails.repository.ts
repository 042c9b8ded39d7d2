import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import type { EmailListFilters, ListParams, RequestContext } from '@mailroom/contracts';
import { entityRows, firstIdAt, insertAllUnless, KeysetPage, keysetPageInOneSnapshot, preparedStatements, TableRows } from '@mailroom/database';
import { outboxRows } from '@mailroom/outbox';
import { EmailEntity } from '../database/entities/email.entity';
import { RecipientEntity } from '../database/entities/recipient.entity';
import { EmailCountsRepository } from './email-counts.repository';
import { NewEmail } from './new-email.builder';

/** What stops EmailsRepository.insertUnless from writing. */
export interface InsertBlockers {
  /** By mode, the addresses to look for on that mode's suppression list. */
  suppressedAddresses: ReadonlyMap<string, string[]>;
  /** A query answering domain ids (column `id`) whose deletion must stop the insert; it appends its parameters. */
  deletedDomains?: (parameters: unknown[]) => string;
}

/** Why EmailsRepository.insertUnless wrote nothing; both empty when it wrote. */
export interface InsertRefusal {
  suppressed: Map<string, Set<string>>;
  deletedDomainIds: Set<string>;
}

const LIST_COLUMNS = ['e.id', 'e.fromAddress', 'e.to', 'e.subject', 'e.status', 'e.createdAt'];

@Injectable()
export class EmailsRepository {
  constructor(
    @InjectDataSource() readonly dataSource: DataSource,
    private readonly counts: EmailCountsRepository,
  ) {}

  /**
   * The emails, their recipients and their outbox events, in one statement,
   * unless one of the addresses is on its mode's suppression list or a
   * fenced domain's deletion passed its in-use check: then nothing is
   * written, and the answer says which (both empty when the emails were
   * written). One statement, so atomic even outside a transaction.
   */
  async insertUnless(manager: EntityManager, emails: NewEmail[], blockers: InsertBlockers): Promise<InsertRefusal> {
    const parameters: unknown[] = [];
    const perMode = [...blockers.suppressedAddresses].map(([mode, addresses]) => {
      parameters.push(mode, addresses);
      return `(mode = $${parameters.length - 1} AND address = ANY($${parameters.length}::text[]))`;
    });
    let sql = `SELECT mode, address FROM emails.suppressions WHERE ${perMode.join(' OR ') || 'false'}`;
    // A deleted domain's row has no mode: the suppressions' rows always do.
    if (blockers.deletedDomains) sql += ` UNION ALL SELECT NULL AS mode, id AS address FROM (${blockers.deletedDomains(parameters)}) AS deleted`;
    const found = await insertAllUnless<{ mode: string | null; address: string }>(preparedStatements(manager), { sql, parameters }, this.rowsOf(manager, emails));
    const refusal: InsertRefusal = { suppressed: new Map(), deletedDomainIds: new Set() };
    for (const { mode, address } of found) {
      if (mode === null) {
        refusal.deletedDomainIds.add(address);
        continue;
      }
      if (!refusal.suppressed.has(mode)) refusal.suppressed.set(mode, new Set());
      refusal.suppressed.get(mode)!.add(address);
    }
    return refusal;
  }

  /** An email the caller may see: same mode, and from one of its domains when the key is restricted. */
  findVisible(ctx: RequestContext, id: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<EmailEntity | null> {
    const query = this.visible(manager.createQueryBuilder(EmailEntity, 'e'), ctx).andWhere('e.id = :id', { id });
    if (lock) query.setLock('pessimistic_write');
    return query.getOne();
  }

  /** The recipients still waiting, when their scheduled email is cancelled. */
  async cancelRecipients(manager: EntityManager, emailId: string): Promise<void> {
    await manager.query(
      `UPDATE emails.recipients SET status = 'cancelled', next_attempt_at = NULL, updated_at = now()
        WHERE email_id = $1 AND status IN ('queued', 'deferred')`,
      [emailId],
    );
  }

  recipientsOf(emailId: string, manager: EntityManager = this.dataSource.manager): Promise<RecipientEntity[]> {
    return manager
      .createQueryBuilder(RecipientEntity, 'r')
      .where('r.email_id = :emailId', { emailId })
      .orderBy(`CASE r.kind WHEN 'to' THEN 0 WHEN 'cc' THEN 1 ELSE 2 END`)
      .addOrderBy('r.address')
      .getMany();
  }

  async save(manager: EntityManager, email: EmailEntity): Promise<void> {
    await manager.save(EmailEntity, email);
  }

  /**
   * Newest first. Every filter has an index: (mode, id) and (mode, status, id)
   * b-trees, GIN on to_addresses and tags; the date range becomes an id range
   * because ids start with their creation time. totalCount comes from the
   * count tables whenever they can answer the filter. The page and its count
   * are read in one snapshot: read side by side, a status change committed
   * between them answered a page of 0 emails beside a totalCount of 20.
   */
  list(ctx: RequestContext, filters: EmailListFilters, params: ListParams): Promise<KeysetPage<EmailEntity>> {
    const build = (manager: EntityManager) => {
      const query = this.visible(manager.createQueryBuilder(EmailEntity, 'e'), ctx).select(LIST_COLUMNS);
      if (filters.status) query.andWhere('e.status = :status', { status: filters.status });
      if (filters.to) query.andWhere('e.to_addresses @> CAST(:to AS text[])', { to: [filters.to] });
      if (filters.tags?.length) query.andWhere('e.tags @> CAST(:tags AS text[])', { tags: filters.tags });
      if (filters.fromDate) {
        query
          .andWhere('e.id >= :fromId', { fromId: firstIdAt('email_', Math.floor(Date.parse(filters.fromDate))) })
          .andWhere('e.created_at >= :fromDate', { fromDate: filters.fromDate });
      }
      if (filters.toDate) {
        query
          .andWhere('e.id < :toId', { toId: firstIdAt('email_', Math.floor(Date.parse(filters.toDate)) + 1) })
          .andWhere('e.created_at < :toDate', { toDate: filters.toDate });
      }
      return query;
    };
    const count = EmailCountsRepository.canCount(filters) ? (manager: EntityManager) => this.counts.count(ctx, filters, manager) : undefined;
    return keysetPageInOneSnapshot(this.dataSource, build, 'e.id', params, count);
  }

  /**
   * Live emails from the domain still on their way: queued (including being delivered) or scheduled. Test
   * mode never uses the domain (no DKIM key, no SMTP, no verification), so its emails do not hold it: a
   * test email scheduled up to 30 days ahead kept a live domain from being deleted, and a live key could
   * neither see nor cancel it.
   */
  async countActiveFromDomain(domain: string, manager: EntityManager = this.dataSource.manager): Promise<number> {
    const [row] = await manager.query(
      `SELECT count(*)::int AS count FROM emails.emails WHERE from_domain = $1 AND status IN ('queued', 'scheduled') AND mode = 'live'`,
      [domain],
    );
    return row.count;
  }

  /** Parents first: recipients reference their email. */
  private rowsOf(manager: EntityManager, emails: NewEmail[]): TableRows[] {
    return [
      entityRows(
        manager,
        EmailEntity,
        emails.map((item) => item.email),
      ),
      entityRows(
        manager,
        RecipientEntity,
        emails.flatMap((item) => item.recipients),
      ),
      outboxRows('emails', emails.flatMap((item) => item.events)),
    ];
  }

  private visible(query: SelectQueryBuilder<EmailEntity>, ctx: RequestContext): SelectQueryBuilder<EmailEntity> {
    query.where('e.mode = :mode', { mode: ctx.mode });
    if (ctx.domainRestrictions.length) query.andWhere('e.from_domain IN (:...domains)', { domains: ctx.domainRestrictions });
    return query;
  }
}
