import { hostAndPort, listensOnEveryInterface } from '@mailroom/runtime';

/**
 * The URL the launcher waits on and prints for the gateway, and points local
 * tracking links at: a gateway on every interface is reached on this host
 * through localhost. An IPv6 HOST goes in brackets: `http://:::3000` is no URL,
 * so the health check never answered and the domains service refused it as
 * TRACKING_BASE_URL, and `npm start` with HOST=:: never came up.
 */
export function gatewayUrl(host: string, port: number): string {
  return `http://${listensOnEveryInterface(host) ? `localhost:${port}` : hostAndPort(host, port)}`;
}
