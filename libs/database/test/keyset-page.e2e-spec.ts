import { keysetPage, keysetPageInOneSnapshot } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { AfterLoad, Column, DataSource, Entity, EntityManager, PrimaryColumn } from 'typeorm';

/** Items loaded so far: a page's rows are loaded once its query has answered. */
let itemsLoaded = 0;

@Entity('item')
class Item {
  @PrimaryColumn()
  id: string;

  @Column()
  status: string;

  @AfterLoad()
  loaded(): void {
    itemsLoaded += 1;
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

  it('counts once the page has answered, so the snapshot\'s one connection never has two queries at once', async () => {
    // pg queues a query sent while another runs on the same client, a use it deprecates and its version 9 removes.
    itemsLoaded = 0;
    let loadedWhenCounting: number | undefined;
    const page = await keysetPageInOneSnapshot(dataSource, waiting, 'i.id', params, async () => {
      loadedWhenCounting = itemsLoaded;
      return 3;
    });
    expect(page.rows).toHaveLength(3);
    expect(loadedWhenCounting).toBe(3);
  });

  it('is needed: read on the pool, the same page and count disagree', async () => {
    // The page is read first, then the commit lands, then the count: each statement sees its own moment.
    const page = await keysetPage(waiting(dataSource.manager), 'i.id', params, () => countAfterACommit(dataSource.manager));
    expect({ listed: page.rows.length, totalCount: page.totalCount }).toEqual({ listed: 3, totalCount: 0 });
  });
});
