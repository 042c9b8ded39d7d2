import { MailRoute, MailRouter } from './mx-resolver';

/** A route is reused for its TTL, but never longer than this: Node's resolver hides the MX record's own TTL. */
export const LONGEST_ROUTE_TTL_SECONDS = 300;
/** Domains remembered at once; past it the oldest entry goes. */
const MAX_DOMAINS = 10_000;

/**
 * Remembers where each recipient domain's mail goes, as every MTA does: a
 * busy sender's mail to one provider would otherwise cost an MX lookup plus
 * an A and an AAAA lookup per MX host for every message (eleven queries for a
 * domain with five MX hosts). Lookups for a domain that run at the same time
 * share one; a found route is kept for its TTL (so records served with TTL 0
 * are looked up every time); a failure or a bounce-worthy answer is not kept,
 * since the next email may well find the domain again.
 */
export class MxRouteCache implements MailRouter {
  private readonly routes = new Map<string, { route: MailRoute; expiresAt: number }>();
  private readonly lookups = new Map<string, Promise<MailRoute>>();

  constructor(
    private readonly resolver: MailRouter,
    private readonly now: () => number = Date.now,
  ) {}

  route(domain: string): Promise<MailRoute> {
    const known = this.routes.get(domain);
    if (known && known.expiresAt > this.now()) return Promise.resolve(known.route);
    this.routes.delete(domain);
    let lookup = this.lookups.get(domain);
    if (!lookup) {
      lookup = this.resolver.route(domain).finally(() => this.lookups.delete(domain));
      void lookup.then((route) => this.remember(domain, route), () => undefined);
      this.lookups.set(domain, lookup);
    }
    return lookup;
  }

  private remember(domain: string, route: MailRoute): void {
    if (route.kind !== 'hosts') return;
    const ttlSeconds = Math.min(route.ttlSeconds, LONGEST_ROUTE_TTL_SECONDS);
    if (!(ttlSeconds > 0)) return;
    if (this.routes.size >= MAX_DOMAINS) this.routes.delete(this.routes.keys().next().value as string);
    this.routes.set(domain, { route, expiresAt: this.now() + ttlSeconds * 1000 });
  }
}
