import { Injectable } from '@nestjs/common';
import { appendEvents } from '@mailroom/outbox';
import { DataSource } from 'typeorm';

interface CountedEmail {
  mode: 'live' | 'test';
  from_address: string;
  to: string[];
  subject: string;
  tags: string[];
  count: number;
}

const COLUMNS = {
  open: { counter: 'opens', extra: ', first_opened_at = COALESCE(first_opened_at, now()), last_opened_at = now()', event: 'email.opened' },
  click: { counter: 'clicks', extra: '', event: 'email.clicked' },
} as const;

/**
 * Counts an open or a click and writes its event in one transaction, so the
 * counters, analytics and webhooks never disagree.
 */
@Injectable()
export class TrackingRepository {
  constructor(private readonly dataSource: DataSource) {}

  async record(kind: 'open' | 'click', emailId: string, details: Record<string, string | null>): Promise<boolean> {
    const column = COLUMNS[kind];
    return this.dataSource.transaction(async (manager) => {
      const rows: CountedEmail[] = await manager.query(
        `UPDATE emails.emails SET ${column.counter} = ${column.counter} + 1${column.extra}, updated_at = now()
          WHERE id = $1 RETURNING mode, from_address, "to", subject, tags, ${column.counter} AS count`,
        [emailId],
      );
      const [row] = Array.isArray(rows[0]) ? (rows[0] as unknown as CountedEmail[]) : rows;
      if (!row) return false;
      await appendEvents(manager, 'emails', [
        {
          type: column.event,
          mode: row.mode,
          data: Object.assign({ emailId, from: row.from_address, to: row.to, subject: row.subject, tags: row.tags }, details, {
            // Unique opens and clicks in analytics count the first of each per email.
            first: Number(row.count) === 1,
          }),
        },
      ]);
      return true;
    });
  }
}
