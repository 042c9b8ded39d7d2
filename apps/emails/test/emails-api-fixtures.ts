import { Client } from 'pg';

/** A valid send body; tests override one field at a time. */
export function emailBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    from: 'Acme <hi@acme.test>',
    to: ['ann@example.com'],
    subject: 'Hello',
    text: 'Hi there',
    ...overrides,
  };
}

export const inOneDay = () => new Date(Date.now() + 24 * 3600 * 1000).toISOString();

/** The stack's Postgres, for asserting what was (not) committed. */
export async function queryDatabase<T = Record<string, unknown>>(databaseUrl: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}
