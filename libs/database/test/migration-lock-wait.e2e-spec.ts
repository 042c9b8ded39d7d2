import { runServiceMigrations, ServiceSchema } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase, eventually } from '@mailroom/testing';
import { Client } from 'pg';
import { MigrationInterface, QueryRunner } from 'typeorm';

class CreateItem1700000000001 implements MigrationInterface {
  name = 'CreateItem1700000000001';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE TABLE lockwait.item (id int PRIMARY KEY)');
    await runner.query('INSERT INTO lockwait.item VALUES (1)');
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE lockwait.item');
  }
}

class AddLabel1700000000002 implements MigrationInterface {
  name = 'AddLabel1700000000002';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE lockwait.item ADD COLUMN label text');
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE lockwait.item DROP COLUMN label');
  }
}

const FIRST: ServiceSchema = { schema: 'lockwait', entities: [], migrations: [CreateItem1700000000001] };
const BOTH: ServiceSchema = { schema: 'lockwait', entities: [], migrations: [CreateItem1700000000001, AddLabel1700000000002] };

/** A migrator waiting for a table lock queues every later query on that table behind it, so it must step back while a long transaction (a backup, an open psql session) holds the table. */
describe('migrations waiting for a table lock', () => {
  let databaseUrl: string;
  let holder: Client;
  let reader: Client;

  beforeEach(async () => {
    databaseUrl = await createTestDatabase();
    await runServiceMigrations(databaseUrl, FIRST);
    holder = new Client({ connectionString: databaseUrl });
    reader = new Client({ connectionString: databaseUrl });
    await Promise.all([holder.connect(), reader.connect()]);
    // What pg_dump does for its whole run: a transaction holding ACCESS SHARE on the table.
    await holder.query('BEGIN');
    await holder.query('SELECT count(*) FROM lockwait.item');
  });

  afterEach(async () => {
    await Promise.all([holder.end(), reader.end()]);
    await dropTestDatabase(databaseUrl);
  });

  async function untilMigratorWaits(): Promise<void> {
    await eventually(async () => {
      const { rows } = await reader.query(`SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted AND mode = 'AccessExclusiveLock'`);
      return rows[0].waiting > 0;
    });
  }

  it('lets the API keep reading the table while it waits, and applies the migration once the long transaction ends', async () => {
    const migrating = runServiceMigrations(databaseUrl, BOTH, { perTryMs: 300, pauseMs: 200, giveUpAfterMs: 60_000 });
    await untilMigratorWaits();
    // Queued behind a waiting ACCESS EXCLUSIVE request, this read would wait for the holder; the migrator stepping back lets it through.
    await reader.query(`SET statement_timeout = 5000`);
    await expect(reader.query('SELECT id FROM lockwait.item')).resolves.toMatchObject({ rows: [{ id: 1 }] });
    await untilMigratorWaits(); // still trying after stepping back
    await holder.query('COMMIT');
    await expect(migrating).resolves.toEqual(['AddLabel1700000000002']);
    const { rows } = await reader.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'lockwait' AND table_name = 'item' ORDER BY column_name`);
    expect(rows).toEqual([{ column_name: 'id' }, { column_name: 'label' }]);
  });

  it('gives up after the budget with a message naming the migration and the session that holds the lock', async () => {
    await holder.query(`SET application_name = 'nightly-backup'`);
    const failure = await runServiceMigrations(databaseUrl, BOTH, { perTryMs: 200, pauseMs: 100, giveUpAfterMs: 1_000 }).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/lockwait: migration AddLabel1700000000002 could not take a table lock in 1 s/);
    expect((failure as Error).message).toMatch(/nightly-backup/);
    await holder.query('COMMIT');
    // Nothing of the failed migration stayed behind, and running again finishes it.
    await expect(runServiceMigrations(databaseUrl, BOTH)).resolves.toEqual(['AddLabel1700000000002']);
  });
});

class CreateOrderTables1700000000011 implements MigrationInterface {
  name = 'CreateOrderTables1700000000011';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE TABLE deadlock.parent (id int PRIMARY KEY)');
    await runner.query('CREATE TABLE deadlock.child (id int PRIMARY KEY)');
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE deadlock.child, deadlock.parent');
  }
}

/** Alters the child table before the parent: the opposite order of a transaction that writes a parent, then its child. */
class AddNotes1700000000012 implements MigrationInterface {
  name = 'AddNotes1700000000012';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE deadlock.child ADD COLUMN note text');
    await runner.query('ALTER TABLE deadlock.parent ADD COLUMN note text');
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE deadlock.parent DROP COLUMN note');
    await runner.query('ALTER TABLE deadlock.child DROP COLUMN note');
  }
}

const TABLES: ServiceSchema = { schema: 'deadlock', entities: [], migrations: [CreateOrderTables1700000000011] };
const WITH_NOTES: ServiceSchema = { schema: 'deadlock', entities: [], migrations: [CreateOrderTables1700000000011, AddNotes1700000000012] };

/**
 * A migration that locks two tables can deadlock with an app's transaction
 * that writes them in the other order (a send writes emails, then
 * recipients). Postgres then cancels one of the two; when it is the
 * migration, it is a lock it could not take like any other, not a reason to
 * fail the whole migrate Job.
 */
describe('a migration deadlocked with a running transaction', () => {
  let databaseUrl: string;
  let app: Client;
  let watcher: Client;

  beforeEach(async () => {
    databaseUrl = await createTestDatabase();
    await runServiceMigrations(databaseUrl, TABLES);
    app = new Client({ connectionString: databaseUrl });
    watcher = new Client({ connectionString: databaseUrl });
    await Promise.all([app.connect(), watcher.connect()]);
  });

  afterEach(async () => {
    await Promise.all([app.end(), watcher.end()]);
    await dropTestDatabase(databaseUrl);
  });

  it('steps back, lets the transaction finish, and applies the migration', async () => {
    // Postgres cancels the session whose deadlock check runs first; the app's runs late, so the migration is the one cancelled.
    await app.query(`SET deadlock_timeout = '30s'`);
    await app.query('BEGIN');
    await app.query('INSERT INTO deadlock.parent VALUES (1)');
    const migrating = runServiceMigrations(databaseUrl, WITH_NOTES, { perTryMs: 10_000, pauseMs: 100, giveUpAfterMs: 60_000 });
    // The migration holds the child table and waits for the parent, which the app's insert holds.
    await eventually(async () => {
      const { rows } = await watcher.query(`SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted AND mode = 'AccessExclusiveLock' AND relation = 'deadlock.parent'::regclass`);
      return rows[0].waiting > 0;
    });
    const outcome = migrating.then(
      (applied) => ({ applied }),
      (error: Error) => ({ error: error.message }),
    );
    await expect(app.query('INSERT INTO deadlock.child VALUES (1)')).resolves.toMatchObject({ rowCount: 1 });
    await app.query('COMMIT');

    expect(await outcome).toEqual({ applied: ['AddNotes1700000000012'] });
    const { rows } = await watcher.query(`SELECT table_name FROM information_schema.columns WHERE table_schema = 'deadlock' AND column_name = 'note' ORDER BY 1`);
    expect(rows).toEqual([{ table_name: 'child' }, { table_name: 'parent' }]);
  });
});
