import { isIPv6 } from 'node:net';

/** Addresses that mean "every address": the gateway is reached on this host through localhost. */
const EVERY_ADDRESS = ['0.0.0.0', '::'];

/**
 * The URL the launcher waits on and prints for the gateway, and points local
 * tracking links at. An IPv6 HOST goes in brackets: `http://:::3000` is no URL,
 * so the health check never answered and the domains service refused it as
 * TRACKING_BASE_URL, and `npm start` with HOST=:: never came up.
 */
export function gatewayUrl(host: string, port: number): string {
  if (EVERY_ADDRESS.includes(host)) return `http://localhost:${port}`;
  return `http://${isIPv6(host) ? `[${host}]` : host}:${port}`;
}
