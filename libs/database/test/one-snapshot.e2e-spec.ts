import { inOneSnapshot } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { DataSource } from 'typeorm';

/** A parent row and its children, read as the API reads an email and its recipients, while another connection commits. */
describe('inOneSnapshot against Postgres', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  const commitBetweenReads = () =>
    dataSource.transaction(async (manager) => {
      await manager.query(`UPDATE child SET status = 'done' WHERE parent_id = 'p1'`);
      await manager.query(`UPDATE parent SET status = 'done' WHERE id = 'p1'`);
    });

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: databaseUrl, poolSize: 4 }).initialize();
    await dataSource.query(`CREATE TABLE parent (id text PRIMARY KEY, status text NOT NULL)`);
    await dataSource.query(`CREATE TABLE child (id text PRIMARY KEY, parent_id text NOT NULL REFERENCES parent, status text NOT NULL)`);
  });

  beforeEach(async () => {
    await dataSource.query(`TRUNCATE child, parent`);
    await dataSource.query(`INSERT INTO parent VALUES ('p1', 'waiting')`);
    await dataSource.query(`INSERT INTO child VALUES ('c1', 'p1', 'waiting')`);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  it('reads the parent and its children as of one moment, though a commit lands between the two statements', async () => {
    const seen = await inOneSnapshot(dataSource, async (manager) => {
      const [parent] = await manager.query(`SELECT status FROM parent WHERE id = 'p1'`);
      await commitBetweenReads();
      const [child] = await manager.query(`SELECT status FROM child WHERE parent_id = 'p1'`);
      return { parent: parent.status, child: child.status };
    });
    expect(seen).toEqual({ parent: 'waiting', child: 'waiting' });
    const [after] = await dataSource.query(`SELECT status FROM child WHERE parent_id = 'p1'`);
    expect(after.status).toBe('done');
  });

  it('is needed: in separate statements without it, the same reads disagree', async () => {
    const [parent] = await dataSource.query(`SELECT status FROM parent WHERE id = 'p1'`);
    await commitBetweenReads();
    const [child] = await dataSource.query(`SELECT status FROM child WHERE parent_id = 'p1'`);
    expect({ parent: parent.status, child: child.status }).toEqual({ parent: 'waiting', child: 'done' });
  });
});
