import { DomainError, ErrorCode } from '@mailroom/errors';

/** How old a remembered answer may be and still stand in for a service that is away (RFC 8767 suggests 1 to 3 days for DNS). */
const DEFAULT_MAX_AGE_MS = 24 * 60 * 60_000;

/**
 * What another service last answered about each key, to stand in for it
 * while it is away (a restart, a deploy, its database down: a 503 from
 * RpcClient). Only for answers that cannot change while that service is
 * away, since it is the one that changes them. Any other failure is the
 * caller's as it came.
 */
export class LastReadWhileAway<T> {
  private readonly reads = new Map<string, { value: T; readAt: number }>();

  constructor(private readonly maxAgeMs = DEFAULT_MAX_AGE_MS) {}

  remember(key: string, value: T, now = Date.now()): T {
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
}
