import type { AddressInfo } from 'node:net';
import type { MailroomConfig } from '@mailroom/config';
import { bootstrapGateway } from '../../../apps/gateway/src/bootstrap';
import { ApiClient } from './api-client';
import type { Stack } from './stack';

export interface ExtraGateway {
  baseUrl: string;
  /** Uses the stack's root key unless a request names another. */
  api: ApiClient;
  close(): Promise<void>;
}

/**
 * Another gateway replica on the same NATS and database as the stack, with
 * its own config (a second replica, TEST_MODE_ENABLED=false, TRUSTED_PROXIES,
 * an IPv6 bind address…). It listens on a free port.
 */
export async function startExtraGateway(stack: Stack, overrides: Partial<MailroomConfig> = {}): Promise<ExtraGateway> {
  const config: MailroomConfig = { ...stack.configFor('gateway'), PORT: 0, ...overrides };
  const app = await bootstrapGateway(config);
  const { port } = app.getHttpServer().address() as AddressInfo;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const baseUrl = `http://${host}:${port}`;
  return { baseUrl, api: new ApiClient(baseUrl, stack.rootKey), close: () => app.close() };
}
