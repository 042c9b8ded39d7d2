import type { IncomingHttpHeaders } from 'node:http';

const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED_IPV6 = /^\[([0-9A-Fa-f:.]+(?:%[^\]]+)?)\](?::\d{1,5})?$/;

/** One X-Forwarded-For entry without the port some proxies add: `203.0.113.7:54321` → `203.0.113.7`, `[2001:db8::7]:443` → `2001:db8::7`. */
export function withoutPort(entry: string): string {
  const trimmed = entry.trim();
  const match = IPV4_WITH_PORT.exec(trimmed) ?? BRACKETED_IPV6.exec(trimmed);
  return match ? match[1] : trimmed;
}

/**
 * Rewrites X-Forwarded-For in place, each address without a port, before
 * Fastify reads the client address from it (request.ip, computed from the raw
 * headers on each read). Some proxies write the client's port too (Azure
 * Application Gateway does): read as it came, `203.0.113.7:54321` is no
 * address, so a key's ipRestrictions refused every request and each new
 * connection counted as another client for AUTH_FAILURE_LIMIT.
 */
export function dropForwardedForPorts(headers: IncomingHttpHeaders): void {
  const forwarded = headers['x-forwarded-for'];
  if (typeof forwarded !== 'string' || !forwarded.includes(':')) return;
  headers['x-forwarded-for'] = forwarded.split(',').map(withoutPort).join(', ');
}
