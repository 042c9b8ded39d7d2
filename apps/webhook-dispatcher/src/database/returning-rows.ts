/**
 * The rows of an UPDATE/DELETE … RETURNING run through TypeORM's query():
 * the postgres driver answers `[rows, affectedCount]` for those, but plain
 * rows for SELECT and INSERT.
 */
export function returningRows<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
