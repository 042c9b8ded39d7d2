import { Resolver } from 'node:dns/promises';

/**
 * Raised when a DNS lookup has no answer within its budget. Its message is
 * what the owner of the name reads (a webhook attempt's log, a delivery's
 * reply): their DNS, not their server, is what failed.
 */
export class DnsTimeoutError extends Error {
  readonly code = 'ETIMEOUT';
  constructor(name: string, timeoutMs: number) {
    super(`DNS lookup of ${name} timed out after ${timeoutMs} ms`);
    this.name = 'DnsTimeoutError';
  }
}

/** The queries of one lookup, which can be stopped together (a c-ares channel's cancel). */
export interface CancellableQueries {
  cancel?(): void;
}

/**
 * A c-ares channel (node's `dns.Resolver`) for one lookup alone, through `servers` (empty: the nameservers of
 * /etc/resolv.conf). A channel per lookup because cancel() stops every query of its channel: a lookup that is over
 * must not leave c-ares retrying for up to another budget, nor stop another lookup's queries. `timeoutMs` is c-ares's
 * timeout per try, which is not a budget (Node 20's c-ares, told 8 s, gave up after 5–6 s, and told 3 s after 4,
 * and it tries each server in turn), so the lookup's DnsDeadline is; within it c-ares may try twice, which also
 * resends a query whose packet was lost.
 */
export function lookupChannel(servers: string[], timeoutMs: number): Resolver {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (servers.length) resolver.setServers(servers);
  return resolver;
}

/**
 * One budget for every query of a lookup, however many servers, tries or
 * names c-ares works through: each query passed through within() fails with
 * DnsTimeoutError when the budget is spent, and end() (or the deadline)
 * cancels whatever the channel still has in flight.
 */
export class DnsDeadline {
  // The global performance (not perf_hooks'), so that a test's fake clock is the deadline's.
  private readonly started = performance.now();
  private readonly expiries = new Set<() => void>();
  private readonly timer: NodeJS.Timeout;
  private expired = false;
  private ended = false;

  constructor(
    private readonly queries: CancellableQueries,
    private readonly budgetMs: number,
  ) {
    this.timer = setTimeout(() => {
      this.expired = true;
      for (const expire of this.expiries) expire();
      this.end();
    }, budgetMs);
  }

  /**
   * The query's answer, or DnsTimeoutError naming `name` at the deadline. c-ares's own timeout, when it fires
   * first, is the same failure, with the time the lookup really took.
   */
  within<T>(name: string, query: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const expire = () => reject(new DnsTimeoutError(name, this.budgetMs));
      if (this.expired) {
        // The query was asked all the same, and its failure must not go unhandled: Node ends the process on one.
        query.catch(() => undefined);
        return expire();
      }
      this.expiries.add(expire);
      query
        .then(resolve, (error: NodeJS.ErrnoException) => reject(error.code === 'ETIMEOUT' ? new DnsTimeoutError(name, Math.round(performance.now() - this.started)) : error))
        .finally(() => this.expiries.delete(expire));
    });
  }

  /** The lookup is over: stop the clock and the queries still in flight. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.queries.cancel?.();
  }
}
