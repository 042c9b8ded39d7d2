import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { deleteInBatches, planOnIndexes, PlanMethod, preparedStatements } from '@mailroom/database';
import { NatsConnection } from 'nats';
import type { MailroomConfig } from '@mailroom/config';
import { MAILROOM_CONFIG, connectNats, PurgeSchedule, RepeatedFailureLog, schedulePurge } from '@mailroom/runtime';
import { ensureEventStream } from './event-stream';
import { ORIGIN_HEADER } from './origin-header';
import { StreamPublisher } from './stream-publisher';

export const OUTBOX_SCHEMA = Symbol('OutboxSchema');

interface OutboxRow {
  seq: string;
  id: string;
  type: string;
  mode: string;
  data: Record<string, unknown>;
  created_at: Date;
}

const BATCH_SIZE = 200;
/**
 * How long Postgres keeps a round's transaction, and the rows it locked,
 * while no statement comes: the relay itself idles in it only while waiting
 * for JetStream's acks (at most ACK_TIMEOUT_MS, 5 s). A relay whose host
 * vanished mid-round (a node lost, a partition: no FIN, no RST) otherwise
 * held its 200 rows until Postgres's TCP keepalive gave up on the session,
 * about two hours by default, while every other replica skipped them (SKIP
 * LOCKED): those events went out hours late, and again once they had left
 * the duplicate window.
 */
const CLAIM_IDLE_LIMIT_MS = 15_000;
const MAX_BACKOFF_MS = 5000;
/** Published events past OUTBOX_RETENTION are deleted once a minute. */
const PURGE_EVERY_MS = 60_000;
/** bigserial's largest value: no bound on seq when every event was created before the cutoff. */
const MAX_SEQ = '9223372036854775807';

/**
 * The next rows to publish, oldest first, locked so replicas share the work.
 * Read in order through the unpublished index, whatever the statistics say
 * (run it after planOnIndexes(manager, UNPUBLISHED_BATCH_PLAN)). Before
 * autovacuum has analyzed the outbox, the planner guesses that few rows wait
 * and that an index scan reads the table at random, so it read every
 * unpublished row by bitmap and sorted them all for the first 200: under the
 * send bench's batch phase that was 18,000 rows and a 5 MB sort on disk,
 * about 100 ms a read and a sixth of Postgres's time, where the index gives
 * the 200 in a millisecond at any size.
 */
export function unpublishedBatchSql(schema: string): string {
  return `SELECT seq, id, type, mode, data, created_at FROM ${schema}.outbox
          WHERE published_at IS NULL ORDER BY seq LIMIT ${BATCH_SIZE} FOR UPDATE SKIP LOCKED`;
}

/** Switched off with sequential scans for unpublishedBatchSql, leaving the ordered index scan. */
export const UNPUBLISHED_BATCH_PLAN: readonly PlanMethod[] = ['bitmapscan', 'sort'];

interface RefusedRow {
  row: OutboxRow;
  reason: unknown;
}

function refusedRows(rows: OutboxRow[], outcomes: PromiseSettledResult<void>[]): RefusedRow[] {
  return outcomes.flatMap((outcome, index) => (outcome.status === 'rejected' ? [{ row: rows[index], reason: outcome.reason }] : []));
}

/** One error naming the first refused event and why, so the log says which row waits and what to change. */
function describeRefusals(refused: RefusedRow[]): Error {
  const [{ row, reason }] = refused;
  const others = refused.length > 1 ? ` (and ${refused.length - 1} more in this round)` : '';
  return new Error(`event ${row.id} (${row.type}, outbox seq ${row.seq}) was not published${others}: ${(reason as Error)?.message ?? String(reason)}`);
}

/**
 * Publishes a service's outbox to JetStream. Rows are claimed with FOR UPDATE
 * SKIP LOCKED, so replicas share the work; a row is marked published only
 * after JetStream acknowledged it, so nothing is lost while NATS is down
 * (rows wait, the relay backs off), and the Nats-Msg-Id drops the duplicate
 * a crash between ack and commit would cause. Each acknowledged row of a
 * round is marked even when others were refused: one event the stream can
 * never take (larger than its max_msg_size or the server's max_payload) held
 * back every event behind it for ever, and its neighbours were sent again at
 * each retry, stored twice once the duplicate window had passed. Such an
 * event waits, logged, and shows in the outbox age gauge. Published rows are
 * kept for OUTBOX_RETENTION, then deleted, so the table holds a day of events
 * rather than every event ever sent.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private connection?: NatsConnection;
  private publisher?: StreamPublisher;
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private purgeSchedule?: PurgeSchedule;
  /** Whether the stream was seen since the last failed round (see ensurePublisher). */
  private streamSeen = false;
  /** Events refused while others went out: logged at once, then every 30 s while some keep being refused. */
  private readonly refusals = new RepeatedFailureLog(this.logger, 'Publishing some outbox events (the rest went out)');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(OUTBOX_SCHEMA) private readonly schema: string,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
    this.purgeSchedule = schedulePurge(this.logger, 'published outbox events past OUTBOX_RETENTION', PURGE_EVERY_MS, () => this.purgePublished());
  }

  async onApplicationShutdown(): Promise<void> {
    this.running = false;
    this.purgeSchedule?.stop();
    this.wake?.();
    await this.loop;
    await this.connection?.drain().catch(() => undefined);
  }

  /** Publishes what is pending now; the loop calls it, and tests may too. */
  async publishPending(): Promise<number> {
    const publisher = await this.ensurePublisher();
    return this.publishBatch(publisher).catch((error: unknown) => {
      this.streamSeen = false;
      throw error;
    });
  }

  private publishBatch(publisher: StreamPublisher): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      // The unpublished index in order, and the marking by seq through the primary key, at any table size.
      // The idle limit in the same round trip: a round is one of the hottest paths of a send.
      await planOnIndexes(manager, UNPUBLISHED_BATCH_PLAN, { idle_in_transaction_session_timeout: CLAIM_IDLE_LIMIT_MS });
      const rows: OutboxRow[] = await preparedStatements(manager).query(unpublishedBatchSql(this.schema));
      if (!rows.length) return 0;
      const outcomes = await Promise.allSettled(rows.map((row) => this.publishRow(publisher, row)));
      const acknowledged = rows.filter((_, index) => outcomes[index].status === 'fulfilled');
      const refused = refusedRows(rows, outcomes);
      // Nothing went out (NATS away, the stream gone or full): the round failed, and the loop backs off.
      if (!acknowledged.length) throw describeRefusals(refused);
      await preparedStatements(manager).query(`UPDATE ${this.schema}.outbox SET published_at = now() WHERE seq = ANY($1::bigint[])`, [
        acknowledged.map((row) => row.seq),
      ]);
      if (refused.length) this.refusals.failed(describeRefusals(refused));
      else this.refusals.succeeded();
      return acknowledged.length;
    });
  }

  private publishRow(publisher: StreamPublisher, row: OutboxRow): Promise<void> {
    const envelope = { id: row.id, type: row.type, createdAt: new Date(row.created_at).toISOString(), mode: row.mode, data: row.data };
    return publisher.publish(row.type, JSON.stringify(envelope), row.id, { 'Mailroom-Mode': row.mode, [ORIGIN_HEADER]: this.schema });
  }

  /**
   * Deletes events published longer than OUTBOX_RETENTION ago, in bounded
   * statements. Unpublished rows are never touched. A timer calls it once a
   * minute, beside the publish loop so a large purge never delays publishing;
   * tests may call it too.
   *
   * No index follows published_at, so the search is bounded by seq instead:
   * an event is published after its seq was drawn, and its seq is drawn after
   * its created_at, so no event after the first one created since the cutoff
   * (in seq order) was published before it. Without that bound every purge
   * read every event the table keeps: a day of them, 880 ms a minute at a
   * million emails a day. created_at is the writing app's clock: one running
   * ahead of Postgres's delays a deletion by as much, and an event it dates
   * in the future is no bound, so even a clock a year ahead delays one by at
   * most another OUTBOX_RETENTION. What is deleted is decided by published_at,
   * on Postgres's clock, as before.
   */
  async purgePublished(): Promise<number> {
    const cutoff = 'now() - make_interval(secs => $1::double precision / 1000)';
    const retention = this.config.OUTBOX_RETENTION;
    const [firstKept]: Array<{ seq: string }> = await this.dataSource.query(
      `SELECT seq FROM ${this.schema}.outbox WHERE created_at >= ${cutoff} AND created_at <= now() ORDER BY seq LIMIT 1`,
      [retention],
    );
    return deleteInBatches(this.dataSource, {
      table: `${this.schema}.outbox`,
      key: 'seq',
      where: `published_at < ${cutoff} AND seq < $2::bigint`,
      parameters: [retention, firstKept?.seq ?? MAX_SEQ],
    });
  }

  private async run(): Promise<void> {
    let backoff = this.config.OUTBOX_POLL_MS;
    while (this.running) {
      try {
        const published = await this.publishPending();
        backoff = this.config.OUTBOX_POLL_MS;
        if (published === BATCH_SIZE) continue;
      } catch (error) {
        this.logger.warn({ err: (error as Error).message }, 'outbox publish failed; events stay in the outbox and are retried');
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, backoff);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /**
   * The publisher, on a live connection, with the stream made if it is
   * missing: at the first round, and again after every failed one. The stream
   * can be gone while the connection stays up (deleted, or a NATS server back
   * without its store), and then every publish went to nobody and the relay
   * retried for ever while events piled up in the outbox.
   */
  private async ensurePublisher(): Promise<StreamPublisher> {
    if (!this.publisher || !this.connection || this.connection.isClosed()) {
      this.publisher?.close();
      this.connection = await connectNats(this.config);
      this.publisher = new StreamPublisher(this.connection);
      this.streamSeen = false;
    }
    if (!this.streamSeen) {
      await ensureEventStream(await this.connection.jetstreamManager(), this.config.EVENT_STREAM_REPLICAS);
      this.streamSeen = true;
    }
    return this.publisher;
  }
}
