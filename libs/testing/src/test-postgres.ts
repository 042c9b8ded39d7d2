import { Client } from 'pg';
import { randomBytes } from 'node:crypto';

/** The server e2e suites create their databases on; globalSetup makes sure one answers. */
export function adminDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** What createTestDatabase names its databases: the only ones dropTestDatabase drops or a copy is made of. */
const TEST_DATABASE_NAME = /^mailroom_test_[a-z0-9_]+$/;

async function withAdmin<T>(run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminDatabaseUrl() });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, uniquely named database per suite, so suites run in parallel and nothing leaks between runs.
 * `icuLocale` (`en-US`) makes its default collation that ICU locale's, as a server set up with a
 * language's locale sorts text (`a` < `B`), where the test server's C locale sorts by code point.
 */
export async function createTestDatabase(options: { icuLocale?: string; template?: string } = {}): Promise<string> {
  const name = `mailroom_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}${sourceOf(options)}`));
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** A copy of `template`, one of our own test databases (createMigratedTestDatabase's); else template0 in an ICU locale; else the server's default. */
function sourceOf({ icuLocale, template }: { icuLocale?: string; template?: string }): string {
  if (template !== undefined) {
    if (!TEST_DATABASE_NAME.test(template) || icuLocale !== undefined) throw new Error(`refusing to copy ${template}${icuLocale ? ` in ${icuLocale}` : ''}`);
    return ` TEMPLATE ${template}`;
  }
  return icuLocale === undefined ? '' : ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${icuLocale.replace(/'/g, "''")}'`;
}

export async function dropTestDatabase(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  if (!TEST_DATABASE_NAME.test(name)) throw new Error(`refusing to drop ${name}`);
  await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
