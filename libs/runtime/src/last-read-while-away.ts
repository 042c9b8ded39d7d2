import { DomainError, ErrorCode } from '@mailroom/errors';

/** How old a remembered answer may be and still stand in for a service that is away (RFC 8767 suggests 1 to 3 days for DNS). */
export const LAST_READ_MAX_AGE_MS = 24 * 60 * 60_000;
/** Keys remembered at once, about 200 bytes each: 20 MB at most. */
const DEFAULT_MAX_ENTRIES = 100_000;

/**
 * What another service last answered about each key, to stand in for it
 * while it is away (a restart, a deploy, its database down: a 503 from
 * RpcClient). Only for answers that cannot change while that service is
 * away, since it is the one that changes them. Any other failure is the
 * caller's as it came.
 *
 * Bounded, because callers choose the keys (every `from` domain a live send
 * names, known or not, is a read): reads past maxAgeMs are let go, and past
 * maxEntries the least recently read go first. A key in use is read again
 * at every cache expiry and so stays; one pushed out fails closed, with the
 * service's own 503 while it is away, never with another key's answer.
 */
export class LastReadWhileAway<T> {
  /** key → its last read, least recently read first (each read is re-inserted, and Map keeps insertion order). */
  private readonly reads = new Map<string, { value: T; readAt: number }>();

  constructor(
    private readonly maxAgeMs = LAST_READ_MAX_AGE_MS,
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
  ) {}

  remember(key: string, value: T, now = Date.now()): T {
    this.reads.delete(key);
    this.forgetOlderThan(now - this.maxAgeMs);
    while (this.reads.size > 0 && this.reads.size >= this.maxEntries) this.reads.delete(this.reads.keys().next().value as string);
    this.reads.set(key, { value, readAt: now });
    return value;
  }

  /** The value last read within maxAgeMs when `error` says the service is away; otherwise throws `error`. */
  standIn(key: string, error: unknown, now = Date.now()): T {
    const last = this.reads.get(key);
    const away = error instanceof DomainError && error.code === ErrorCode.ServiceUnavailable;
    if (!away || !last || now - last.readAt > this.maxAgeMs) throw error;
    return last.value;
  }

  get size(): number {
    return this.reads.size;
  }

  private forgetOlderThan(oldest: number): void {
    for (const [key, read] of this.reads) {
      if (read.readAt >= oldest) return;
      this.reads.delete(key);
    }
  }
}
