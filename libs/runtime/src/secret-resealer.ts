import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { SecretBox } from '@mailroom/auth';
import { secretsSealedWithPreviousKey } from './metrics';

/** Where a service stores one kind of sealed secret: text columns of `table`, each sealed with its row's `id` as context. */
export interface SealedColumns {
  /** The label of mailroom_secrets_sealed_with_previous_key. */
  kind: 'dkim_key' | 'webhook_secret';
  /** For the log: "DKIM private keys". */
  what: string;
  /** Schema-qualified: "domains.domains". */
  table: string;
  /** Nullable columns are skipped where null. */
  columns: readonly string[];
}

/** What one pass over the table found. */
export interface ResealOutcome {
  /** Sealed again under the current key. */
  resealed: number;
  /** Still sealed with a previous key: the row changed while the pass read it (it is looked at again next pass). */
  remaining: number;
  /** Opened by no key the service holds: re-sealing cannot help. */
  unreadable: number;
}

const BATCH_ROWS = 100;
/**
 * How often a replica looks again while ENCRYPTION_KEY_PREVIOUS is set: during a rolling change a replica not yet
 * rolled still seals with the old key, after this replica's pass at boot.
 */
export const RESEAL_EVERY_MS = 10 * 60 * 1000;

/**
 * Seals again under the current key every value of `sealed` that only a previous key opens, a batch of rows at a
 * time (ordered by id, so a row inserted meanwhile is either read or sealed with the current key already). Each
 * value is written only if it is still the one read (compare-and-set): a secret rotated or a row deleted meanwhile
 * wins, and no lock is held across batches. `stopped` ends the pass between batches (shutdown).
 */
export async function resealPass(dataSource: DataSource, box: SecretBox, sealed: SealedColumns, stopped: () => boolean = () => false): Promise<ResealOutcome> {
  const outcome: ResealOutcome = { resealed: 0, remaining: 0, unreadable: 0 };
  const list = sealed.columns.join(', ');
  let after = '';
  while (!stopped()) {
    const rows: Record<string, string | null>[] = await dataSource.query(`SELECT id, ${list} FROM ${sealed.table} WHERE id > $1 ORDER BY id LIMIT ${BATCH_ROWS}`, [after]);
    for (const row of rows) {
      for (const column of sealed.columns) {
        const value = row[column];
        if (value !== null) await resealValue(dataSource, box, { table: sealed.table, column, id: row.id as string, value }, outcome);
      }
    }
    if (rows.length < BATCH_ROWS) break;
    after = rows[rows.length - 1].id as string;
  }
  return outcome;
}

async function resealValue(dataSource: DataSource, box: SecretBox, cell: { table: string; column: string; id: string; value: string }, outcome: ResealOutcome): Promise<void> {
  let opened;
  try {
    opened = box.open(cell.value, cell.id);
  } catch {
    outcome.unreadable += 1;
    return;
  }
  if (!opened.sealedWithPrevious) return;
  // TypeORM answers an UPDATE on Postgres with [rows, affected count].
  const [, updated]: [unknown[], number] = await dataSource.query(`UPDATE ${cell.table} SET ${cell.column} = $1 WHERE id = $2 AND ${cell.column} = $3`, [
    box.encrypt(opened.plaintext, cell.id),
    cell.id,
    cell.value,
  ]);
  if (updated === 1) outcome.resealed += 1;
  else outcome.remaining += 1;
}

/**
 * A provider that keeps one kind of a service's stored secrets sealed under the current ENCRYPTION_KEY: while
 * ENCRYPTION_KEY_PREVIOUS is set, a pass at boot and then every RESEAL_EVERY_MS (see resealPass). What is left
 * under a previous key after each pass is the gauge mailroom_secrets_sealed_with_previous_key{kind}, and a log
 * line says when none is left, so the operator knows when this service no longer needs ENCRYPTION_KEY_PREVIOUS.
 * Replicas may pass at the same time: the compare-and-set lets one write win, and the other counts it remaining
 * until its next pass.
 */
export abstract class SecretResealer implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger = new Logger(this.constructor.name);
  private stopped = false;
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;
  /** What the last pass left under a previous key; undefined before the first. */
  private lastRemaining?: number;

  protected abstract readonly sealed: SealedColumns;

  constructor(
    private readonly dataSource: DataSource,
    private readonly box: SecretBox,
  ) {}

  onApplicationBootstrap(): void {
    const labels = { kind: this.sealed.kind };
    // Without previous keys there is nothing this service could open to seal again.
    if (this.box.previousKeyIds.length === 0) return secretsSealedWithPreviousKey.set(labels, 0);
    // Unknown until the first pass ends: no sample, rather than a 0 (or an earlier boot's value) that says done.
    secretsSealedWithPreviousKey.remove(labels);
    this.runAfter(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pass;
  }

  private runAfter(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.pass = this.run().finally(() => {
        if (!this.stopped) this.runAfter(RESEAL_EVERY_MS);
      });
    }, delayMs).unref();
  }

  private async run(): Promise<void> {
    const { kind, what } = this.sealed;
    try {
      const outcome = await resealPass(this.dataSource, this.box, this.sealed, () => this.stopped);
      if (this.stopped) return;
      secretsSealedWithPreviousKey.labels({ kind }).set(outcome.remaining);
      this.report(outcome);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, `sealing ${what} again under ENCRYPTION_KEY failed; the next pass retries`);
    }
  }

  private report({ resealed, remaining, unreadable }: ResealOutcome): void {
    const { what } = this.sealed;
    const keyId = this.box.keyId;
    if (resealed || remaining) this.logger.log({ resealed, remaining }, `sealed ${resealed} ${what} again under ENCRYPTION_KEY id ${keyId}; ${remaining} still under a previous key`);
    if (remaining === 0 && this.lastRemaining !== 0) {
      this.logger.log(`all ${what} are sealed under ENCRYPTION_KEY id ${keyId}: this service no longer needs ENCRYPTION_KEY_PREVIOUS for them`);
    }
    if (unreadable) {
      this.logger.warn({ unreadable }, `${unreadable} ${what} open with no key this service holds (ENCRYPTION_KEY nor ENCRYPTION_KEY_PREVIOUS): they are lost, issue new ones`);
    }
    this.lastRemaining = remaining;
  }
}
