interface Entry<V> {
  value: V;
  expiresAt: number;
  recordId: string;
}

/**
 * A per-process cache of answers about records that change rarely and whose
 * changes are announced (over NATS, see watchKeyChanges). Entries live at
 * most ttlMs, and an announced change evicts every answer about its record.
 *
 * An answer loaded while a change arrived may predate that change, so it is
 * handed to its caller but not kept: the next caller loads again.
 */
export class ChangeAwareCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly keysByRecord = new Map<string, Set<string>>();
  /** Bumped on every eviction; a load that saw it move is not cached. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly recordIdOf: (value: V) => string,
  ) {}

  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const kept = this.peek(key);
    if (kept !== undefined) return kept;
    const generation = this.generation;
    const value = await load();
    this.delete(key);
    if (value !== null && generation === this.generation && this.ttlMs > 0) this.keep(key, value);
    return value;
  }

  /** The answer kept for `key` while it is fresh, without loading: for callers that would otherwise queue behind a load. */
  peek(key: string): V | undefined {
    const entry = this.entries.get(key);
    return entry && entry.expiresAt > Date.now() ? entry.value : undefined;
  }

  /** Forgets every answer about one record. */
  evict(recordId: string): void {
    this.generation += 1;
    for (const key of this.keysByRecord.get(recordId) ?? []) this.entries.delete(key);
    this.keysByRecord.delete(recordId);
  }

  /** Forgets everything, e.g. after a reconnect during which changes may have been missed. */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
    this.keysByRecord.clear();
  }

  private keep(key: string, value: V): void {
    const recordId = this.recordIdOf(value);
    this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs, recordId });
    const keys = this.keysByRecord.get(recordId) ?? new Set<string>();
    keys.add(key);
    this.keysByRecord.set(recordId, keys);
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    const keys = this.keysByRecord.get(entry.recordId);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByRecord.delete(entry.recordId);
  }
}
