import type { NatsSettings } from './nats-authentication';
import { connectNats } from './nats-options';
import { NatsConnection } from 'nats';
import { DataSource } from 'typeorm';
import type { CheckState, ReadinessCheck } from './ops-server';

const CHECK_TIMEOUT_MS = 1000;

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS).unref())]);
}

/**
 * Readiness of an app: a round trip to NATS (a flush on a connection of its
 * own, which fails while the server is unreachable) and, when the app has
 * one, a SELECT 1 on its database.
 */
export async function readinessChecks(nats: NatsSettings, dataSource?: DataSource): Promise<{ check: ReadinessCheck; close(): Promise<void> }> {
  const connection: NatsConnection = await connectNats(nats);
  const check: ReadinessCheck = async (): Promise<Record<string, CheckState>> => {
    const nats = await withTimeout(connection.flush()).then(
      () => 'ok' as const,
      () => 'down' as const,
    );
    if (!dataSource) return { nats };
    const database = await withTimeout(dataSource.query('SELECT 1')).then(
      () => 'ok' as const,
      () => 'down' as const,
    );
    return { nats, database };
  };
  return { check, close: () => connection.close() };
}
