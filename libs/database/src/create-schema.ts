/** A DataSource or a migration's QueryRunner. */
interface Queries {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * Creates `schema` unless it is there. Not CREATE SCHEMA IF NOT EXISTS:
 * Postgres checks the CREATE privilege on the database before it looks for
 * the schema, so that fails for a role that owns schemas a DBA created for
 * it but may not create any, even with nothing to create.
 */
export async function createSchemaUnlessExists(queries: Queries, schema: string): Promise<void> {
  const [row] = (await queries.query('SELECT to_regnamespace($1) IS NULL AS missing', [`"${schema}"`])) as Array<{ missing: boolean }>;
  if (row.missing) await queries.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
}
