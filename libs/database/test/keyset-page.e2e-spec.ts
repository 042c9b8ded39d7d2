import { keysetPage, keysetPageInOneSnapshot } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { AfterLoad, Column, DataSource, Entity, EntityManager, PrimaryColumn } from 'typeorm';

/** Called as the page's rows are loaded, so a test can order a commit after the page was read. */
let onItemLoaded: (() => void) | undefined;

@Entity('item')
class Item {
  @PrimaryColumn()
  id: string;

  @Column()
  status: string;

  @AfterLoad()
  loaded(): void {
    onItemLoaded?.();
  }
}

/** A list's page and its totalCount, while another connection commits a change to what they count. */
describe('keysetPageInOneSnapshot against Postgres', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  const params = { limit: 10 };
  const waiting = (manager: EntityManager) => manager.createQueryBuilder(Item, 'i').where(`i.status = 'waiting'`);
  const moveAllOn = () => dataSource.query(`UPDATE item SET status = 'done'`);
  /** Counts after a commit that moves every item out of the filter, as a worker's commit lands between two reads. */
  const countAfterACommit = async (manager: EntityManager) => {
    await manager.query('SELECT 1');
    await moveAllOn();
    const [row] = await manager.query(`SELECT count(*)::int AS n FROM item WHERE status = 'waiting'`);
    return row.n as number;
  };

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: databaseUrl, poolSize: 4, entities: [Item] }).initialize();
    await dataSource.query(`CREATE TABLE item (id text PRIMARY KEY, status text NOT NULL)`);
  });
  beforeEach(async () => {
    await dataSource.query(`TRUNCATE item`);
    await dataSource.query(`INSERT INTO item VALUES ('item_1', 'waiting'), ('item_2', 'waiting'), ('item_3', 'waiting')`);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  it('answers a page and a count of the same moment, though a commit lands between them', async () => {
    const page = await keysetPageInOneSnapshot(dataSource, waiting, 'i.id', params, countAfterACommit);
    expect({ listed: page.rows.length, totalCount: page.totalCount }).toEqual({ listed: 3, totalCount: 3 });
    expect((await keysetPage(waiting(dataSource.manager), 'i.id', params)).totalCount).toBe(0);
  });

  it('is needed: read on the pool, the same page and count disagree', async () => {
    // The page and the count run side by side on the pool; the commit lands once the page was read (on a loaded
    // machine it could otherwise land first, and both would agree on nothing).
    const pageRead = new Promise<void>((resolve) => (onItemLoaded = resolve));
    const countAfterThePage = async () => {
      await pageRead;
      return countAfterACommit(dataSource.manager);
    };
    try {
      const page = await keysetPage(waiting(dataSource.manager), 'i.id', params, countAfterThePage);
      expect({ listed: page.rows.length, totalCount: page.totalCount }).toEqual({ listed: 3, totalCount: 0 });
    } finally {
      onItemLoaded = undefined;
    }
  });
});
