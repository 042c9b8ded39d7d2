import { DataSource } from 'typeorm';
import { runServiceMigrations, serviceDataSourceOptions, ServiceSchema } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from './test-postgres';

/** A fresh database holding one service's schema with every migration applied, for tests of a migration's data step. */
export interface MigratedSchema {
  dataSource: DataSource;
  /**
   * Undoes the newest migrations back to `name`, that one included, so a
   * migration's data step is tested whatever migrations come after it.
   * `dataSource.runMigrations()` applies them again.
   */
  undoThrough(name: string): Promise<void>;
  destroy(): Promise<void>;
}

export async function startMigratedSchema(owned: ServiceSchema): Promise<MigratedSchema> {
  const databaseUrl = await createTestDatabase();
  await runServiceMigrations(databaseUrl, owned);
  const dataSource = new DataSource(serviceDataSourceOptions(databaseUrl, owned, { size: 1 }));
  await dataSource.initialize();
  return {
    dataSource,
    undoThrough: async (name) => {
      for (;;) {
        const [newest] = await dataSource.query(`SELECT name FROM ${owned.schema}.migrations ORDER BY timestamp DESC LIMIT 1`);
        await dataSource.undoLastMigration({ transaction: 'each' });
        if (!newest || newest.name === name) return;
      }
    },
    destroy: async () => {
      await dataSource.destroy();
      await dropTestDatabase(databaseUrl);
    },
  };
}
