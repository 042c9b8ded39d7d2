import { isDatabaseUnavailable } from '@mailroom/errors';
import { rolledBackForSure } from './transaction-outcome';

export interface GroupCommitOptions {
  /** The most items one transaction takes. */
  maxBatch?: number;
  /** The most transactions at once; items arriving meanwhile queue up and become the next batches. */
  maxInFlight?: number;
  /** Whether a failed batch certainly left nothing behind, so its items may be committed one by one. */
  retryAlone?: (error: unknown) => boolean;
}

/**
 * `retryAlone` for writes that are safe to repeat: a failed batch is written
 * again item by item, unless the database itself is away, which no single
 * item can fix. Each lone write would then wait for it again (up to the
 * pool's acquire timeout), the last item of the batch for all of them, and
 * every item queued behind it longer still; failed at once, each caller's
 * own retry takes over.
 */
export function unlessDatabaseUnavailable(error: unknown): boolean {
  return !isDatabaseUnavailable(error);
}

interface Pending<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: writes that arrive in the same turn of the event loop share
 * one transaction, so a burst of small requests costs one round of
 * BEGIN/INSERT/COMMIT and one WAL flush instead of one each. Every caller
 * still learns only after its rows are committed.
 *
 * A failing item must not fail its neighbours: when a batch transaction
 * fails and certainly rolled back, each of its items is committed on its own,
 * and each caller gets its own result or error.
 */
export class GroupCommitter<I, R> {
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly retryAlone: (error: unknown) => boolean;
  private queue: Pending<I, R>[] = [];
  private inFlight = 0;
  private flushScheduled = false;

  /** `commit` writes the items in one transaction and returns their results in the same order. */
  constructor(
    private readonly commit: (items: I[]) => Promise<R[]>,
    options: GroupCommitOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 64;
    this.maxInFlight = options.maxInFlight ?? 4;
    this.retryAlone = options.retryAlone ?? rolledBackForSure;
  }

  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.flushScheduled) return;
      this.flushScheduled = true;
      // setImmediate runs after the I/O callbacks of this loop turn, so every request read in it joins the batch.
      setImmediate(() => {
        this.flushScheduled = false;
        this.flush();
      });
    });
  }

  private flush(): void {
    while (this.queue.length && this.inFlight < this.maxInFlight) {
      const batch = this.queue.length <= this.maxBatch ? this.queue : this.queue.slice(0, this.maxBatch);
      this.queue = batch === this.queue ? [] : this.queue.slice(this.maxBatch);
      this.inFlight += 1;
      void this.run(batch).finally(() => {
        this.inFlight -= 1;
        this.flush();
      });
    }
  }

  private async run(batch: Pending<I, R>[]): Promise<void> {
    let results: R[];
    try {
      results = await this.commit(batch.map((pending) => pending.item));
    } catch (error) {
      if (batch.length > 1 && this.retryAlone(error)) return this.runOneByOne(batch);
      for (const pending of batch) pending.reject(error);
      return;
    }
    if (results.length !== batch.length) {
      const error = new Error(`Group commit returned ${results.length} results for ${batch.length} items`);
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, index) => pending.resolve(results[index]));
  }

  /** One after another, so a fallback holds one connection like the batch it replaces. */
  private async runOneByOne(batch: Pending<I, R>[]): Promise<void> {
    for (const pending of batch) {
      try {
        const [result] = await this.commit([pending.item]);
        pending.resolve(result);
      } catch (error) {
        pending.reject(error);
      }
    }
  }
}
