import { DataSource } from 'typeorm';

/**
 * Records how many rows each DELETE statement on `table` takes (a statement
 * trigger with a transition table), so a test sees the statements a purge
 * ran, not only what it left. Resolves to a reader of those counts.
 */
export async function recordDeletesPerStatement(dataSource: DataSource, table: string): Promise<() => Promise<number[]>> {
  await dataSource.query('CREATE TABLE public.deleted_per_statement (deleted int NOT NULL)');
  await dataSource.query(`
    CREATE FUNCTION public.count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN INSERT INTO public.deleted_per_statement SELECT count(*) FROM old_rows; RETURN NULL; END $$`);
  await dataSource.query(`CREATE TRIGGER count_deleted AFTER DELETE ON ${table}
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.count_deleted()`);
  return async () => ((await dataSource.query('SELECT deleted FROM public.deleted_per_statement')) as Array<{ deleted: number }>).map((row) => row.deleted);
}
