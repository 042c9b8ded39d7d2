import { COLUMN_DEFAULT, insertAll, insertAllUnless } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { DataSource } from 'typeorm';

/** What the JSON form of insertAll writes, read back from real Postgres. */
describe('insertAll against Postgres', () => {
  let databaseUrl: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: databaseUrl }).initialize();
    await dataSource.query(`
      CREATE TABLE parents (id text PRIMARY KEY, tags text[] NOT NULL, data jsonb, at timestamptz NOT NULL, n int, flag boolean NOT NULL DEFAULT true, note text NOT NULL DEFAULT 'none');
      CREATE TABLE children (seq bigserial PRIMARY KEY, parent_id text NOT NULL REFERENCES parents (id), body text);
      CREATE TABLE blocked (name text PRIMARY KEY)`);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  it('round-trips every kind of value, defaults included, parents and children in one statement', async () => {
    const at = new Date('2030-01-02T03:04:05.678Z');
    const awkward = 'quote " backslash \\ newline \n tab \t bell \u0007 emoji 😀 accent é, and a backslash-u: \\uD800';
    await insertAll(dataSource, [
      {
        table: 'parents',
        columns: ['id', 'tags', 'data', 'at', 'n', 'flag', 'note'],
        types: ['text', 'text[]', 'jsonb', 'timestamptz', 'int', 'boolean', 'text'],
        rows: [
          ['p1', ['a', 'b,c', '{d}'], { nested: { list: [1, 'two'] }, text: awkward }, at, 7, false, awkward],
          ['p2', [], null, at, null, COLUMN_DEFAULT, COLUMN_DEFAULT],
        ],
      },
      {
        table: 'children',
        columns: ['parent_id', 'body'],
        types: ['text', 'text'],
        rows: [
          ['p1', 'lone \uD800 surrogate'],
          ['p2', null],
        ],
      },
    ]);

    const parents = await dataSource.query('SELECT id, tags, data, at, n, flag, note FROM parents ORDER BY id');
    expect(parents).toEqual([
      { id: 'p1', tags: ['a', 'b,c', '{d}'], data: { nested: { list: [1, 'two'] }, text: awkward }, at, n: 7, flag: false, note: awkward },
      { id: 'p2', tags: [], data: null, at, n: null, flag: true, note: 'none' },
    ]);
    const children = await dataSource.query('SELECT parent_id, body FROM children ORDER BY seq');
    expect(children).toEqual([
      { parent_id: 'p1', body: 'lone \uFFFD surrogate' },
      { parent_id: 'p2', body: null },
    ]);
  });

  it('writes nothing when a row breaks a constraint: the tables share one statement', async () => {
    const insert = insertAll(dataSource, [
      { table: 'parents', columns: ['id', 'tags', 'at'], types: ['text', 'text[]', 'timestamptz'], rows: [['p3', [], new Date()]] },
      { table: 'children', columns: ['parent_id'], types: ['text'], rows: [['p3'], ['missing']] },
    ]);
    await expect(insert).rejects.toThrow(/foreign key/);
    expect(await dataSource.query(`SELECT id FROM parents WHERE id = 'p3'`)).toEqual([]);
  });

  describe('unless a blocking query finds rows', () => {
    const family = (id: string) => [
      { table: 'parents', columns: ['id', 'tags', 'at'], types: ['text', 'text[]', 'timestamptz'], rows: [[id, [], new Date()]] },
      { table: 'children', columns: ['parent_id', 'body'], types: ['text', 'text'], rows: [[id, 'first'], [id, COLUMN_DEFAULT]] },
    ];
    const blockedAmong = (names: string[]) => ({ sql: 'SELECT name FROM blocked WHERE name = ANY($1::text[])', parameters: [names] });

    it('inserts every table and answers no rows when the query finds none', async () => {
      await expect(insertAllUnless(dataSource, blockedAmong(['nobody']), family('p4'))).resolves.toEqual([]);
      expect(await dataSource.query(`SELECT id FROM parents WHERE id = 'p4'`)).toEqual([{ id: 'p4' }]);
      expect(await dataSource.query(`SELECT body FROM children WHERE parent_id = 'p4' ORDER BY body NULLS LAST`)).toEqual([{ body: 'first' }, { body: null }]);
    });

    it('inserts nothing into any table and answers what it found when the query finds rows', async () => {
      await dataSource.query(`INSERT INTO blocked (name) VALUES ('x'), ('y')`);
      const found = await insertAllUnless<{ name: string }>(dataSource, blockedAmong(['x', 'nobody', 'y']), family('p5'));
      expect(found.map((row) => row.name).sort()).toEqual(['x', 'y']);
      expect(await dataSource.query(`SELECT id FROM parents WHERE id = 'p5'`)).toEqual([]);
      expect(await dataSource.query(`SELECT body FROM children WHERE parent_id = 'p5'`)).toEqual([]);
    });
  });
});
