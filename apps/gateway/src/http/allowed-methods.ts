import type { RegisteredRoute } from '../openapi/registered-routes';

interface RoutePattern {
  method: string;
  matches: RegExp;
}

/** `/v1/domains/:id/verify` → a RegExp for the concrete paths Fastify routes there (a parameter is one non-empty segment). */
function toMatcher(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z0-9_]+)/)
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

/**
 * The path as Fastify's router matches it: decoded as decodeURI does, which
 * leaves an encoded `/` (and `?`, `#`) inside its segment, so `/v1/%65mails`
 * is `/v1/emails` here as there. Null for one that is not UTF-8 once decoded,
 * which no route has.
 */
function asRouted(path: string): string | null {
  try {
    return decodeURI(path);
  } catch {
    return null;
  }
}

/**
 * The methods each path is served with, from the routes Fastify registered
 * (HEAD included where Fastify serves it for a GET), so a request whose path
 * exists under another method can be told so (405 and `Allow`, RFC 9110
 * §15.5.6) instead of hearing that nothing is there.
 */
export class AllowedMethods {
  private readonly patterns: RoutePattern[];

  constructor(routes: RegisteredRoute[]) {
    this.patterns = routes.map((route) => ({ method: route.method, matches: toMatcher(route.url) }));
  }

  /** Sorted, each once; empty when no route has this path. `path` is as the request wrote it, percent-encoded. */
  at(path: string): string[] {
    const routed = asRouted(path);
    if (routed === null) return [];
    const methods = this.patterns.filter((pattern) => pattern.matches.test(routed)).map((pattern) => pattern.method);
    return [...new Set(methods)].sort();
  }
}
