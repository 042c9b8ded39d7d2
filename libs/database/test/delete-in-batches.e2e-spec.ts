import { deleteInBatches } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { DataSource } from 'typeorm';

describe(deleteInBatches.name, () => {
  let databaseUrl: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: databaseUrl }).initialize();
    await dataSource.query('CREATE TABLE items (id int PRIMARY KEY, expired boolean NOT NULL)');
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  it('deletes every matching row across several statements and keeps the rest', async () => {
    await dataSource.query('INSERT INTO items SELECT n, n % 3 <> 0 FROM generate_series(1, 20) AS n');

    const deleted = await deleteInBatches(dataSource, { table: 'items', key: 'id', where: 'expired = $1', parameters: [true], batchSize: 4 });

    const left: Array<{ id: number; expired: boolean }> = await dataSource.query('SELECT id, expired FROM items ORDER BY id');
    expect(deleted).toBe(14);
    expect(left.map((row) => row.id)).toEqual([3, 6, 9, 12, 15, 18]);
    expect(left.every((row) => !row.expired)).toBe(true);
  });
});
