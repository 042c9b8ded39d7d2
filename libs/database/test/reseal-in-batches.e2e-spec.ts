import { randomBytes } from 'node:crypto';
import { SecretBox } from '@mailroom/auth';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { DataSource } from 'typeorm';
import { resealInBatches } from '../src/reseal-in-batches';

/**
 * Sealing stored secrets again after ENCRYPTION_KEY changed: every value only a previous key opens, across batches,
 * and never over a value written since it was read (a webhook secret rotated meanwhile).
 */
describe(resealInBatches.name, () => {
  const oldKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  const oldBox = new SecretBox(oldKey);
  const box = new SecretBox(newKey, [oldKey]);
  const newOnly = new SecretBox(newKey);
  const secrets = { table: 'secrets', columns: ['sealed', 'previous_sealed'] };
  let databaseUrl: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: databaseUrl, poolSize: 4 }).initialize();
    await dataSource.query('CREATE TABLE secrets (id text PRIMARY KEY, sealed text NOT NULL, previous_sealed text)');
  });
  afterEach(() => dataSource.query('TRUNCATE secrets'));
  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  const stored = async () => (await dataSource.query('SELECT id, sealed, previous_sealed FROM secrets ORDER BY id')) as { id: string; sealed: string; previous_sealed: string | null }[];

  it('seals again every value only a previous key opens, over several batches, with its row id as context', async () => {
    const ids = Array.from({ length: 250 }, (_, index) => `row_${String(index).padStart(3, '0')}`);
    for (const id of ids) {
      // Every third row is already under the current key; every other row has a previous secret under the old key.
      const sealer = ids.indexOf(id) % 3 === 0 ? box : oldBox;
      await dataSource.query('INSERT INTO secrets VALUES ($1, $2, $3)', [id, sealer.encrypt(`secret of ${id}`, id), ids.indexOf(id) % 2 ? oldBox.encrypt(`before ${id}`, id) : null]);
    }
    const outcome = await resealInBatches(dataSource, box, secrets, () => false);
    expect(outcome).toEqual({ resealed: 166 + 125, remaining: 0, unreadable: 0 });
    for (const row of await stored()) {
      expect(newOnly.decrypt(row.sealed, row.id)).toBe(`secret of ${row.id}`);
      if (row.previous_sealed !== null) expect(newOnly.decrypt(row.previous_sealed, row.id)).toBe(`before ${row.id}`);
    }
    expect(await resealInBatches(dataSource, box, secrets, () => false)).toEqual({ resealed: 0, remaining: 0, unreadable: 0 });
  });

  it('leaves a value written between its read and its write to the writer, and counts it remaining', async () => {
    await dataSource.query('INSERT INTO secrets VALUES ($1, $2, NULL)', ['row_1', oldBox.encrypt('old secret', 'row_1')]);
    const rotated = box.encrypt('rotated secret', 'row_1');
    // A secret rotated by the API just before the re-sealing UPDATE reaches the row.
    const racing = Object.create(dataSource, {
      query: {
        value: async (sql: string, parameters: unknown[]) => {
          if (sql.startsWith('UPDATE')) await dataSource.query('UPDATE secrets SET sealed = $1 WHERE id = $2', [rotated, 'row_1']);
          return dataSource.query(sql, parameters);
        },
      },
    }) as DataSource;
    expect(await resealInBatches(racing, box, secrets, () => false)).toEqual({ resealed: 0, remaining: 1, unreadable: 0 });
    expect((await stored())[0].sealed).toBe(rotated);
  });

  it('counts what no key opens and leaves it as it is', async () => {
    const lost = new SecretBox(randomBytes(32).toString('base64')).encrypt('lost', 'row_1');
    await dataSource.query('INSERT INTO secrets VALUES ($1, $2, NULL)', ['row_1', lost]);
    expect(await resealInBatches(dataSource, box, secrets, () => false)).toEqual({ resealed: 0, remaining: 0, unreadable: 1 });
    expect((await stored())[0].sealed).toBe(lost);
  });
});
