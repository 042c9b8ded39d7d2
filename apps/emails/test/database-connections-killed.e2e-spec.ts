import { Client } from 'pg';
import { startDatabaseOutage } from '@mailroom/testing';
import { expectEveryAcceptedOnce, faultUnderLoad, StackUnderFault, startStackUnderFault, steadySenderTo } from './support/stack-under-fault';

/** How long connections keep being killed, and how often every backend of the database is terminated meanwhile. */
const KILLING_MS = 8000;
const KILL_EVERY_MS = 30;
/** How long the database refuses new connections in the second test. */
const REFUSING_MS = 8000;

/**
 * Terminates every backend of the database but `spare` every `everyMs`, as a DBA's pg_terminate_backend sweep, a
 * pooler restart or a flapping failover does, without refusing new connections: the apps reconnect at once and
 * lose them again. Counts the backends it terminated.
 */
class ConnectionKiller {
  terminated = 0;
  private readonly admin: Client;
  private readonly database: string;

  constructor(databaseUrl: string, private readonly spare: number[]) {
    this.database = new URL(databaseUrl).pathname.slice(1);
    this.admin = new Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
  }

  async run(forMs: number, everyMs: number): Promise<void> {
    await this.admin.connect();
    try {
      for (const until = Date.now() + forMs; Date.now() < until; ) {
        const { rows } = await this.admin.query(
          'SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE datname = $1 AND NOT (pid = ANY($2::int[])) AND pid <> pg_backend_pid()',
          [this.database, this.spare],
        );
        this.terminated += rows.filter((row) => row.killed).length;
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    } finally {
      await this.admin.end();
    }
  }
}

/**
 * Every Postgres backend of the stack's database is terminated again and again while sends and reads go on
 * through the API. Answers are 2xx or 503 service_unavailable, never 500; every accepted email goes out once and
 * its email.delivered event reaches a webhook; and once the killing stops the apps work again without a restart.
 */
describe('the stack while its database connections are killed', () => {
  let stack: StackUnderFault;

  beforeAll(async () => {
    stack = await startStackUnderFault();
  }, 60000);

  afterAll(() => stack?.stop());

  it('answers 2xx or a clean 503, delivers every accepted email once, and recovers without a restart', async () => {
    const { api } = stack.harness.stack;
    const sender = steadySenderTo(api, 'killed');
    const { rows: [own] } = await stack.harness.db.query('SELECT pg_backend_pid() AS pid');
    // Keys the gateway has not cached yet, each used first while the database is failing: the keys service must not
    // answer one as unknown (a 401, and remembered so by the gateway for KEY_CACHE_TTL_MS).
    const issued = await Promise.all(Array.from({ length: 20 }, async () => (await stack.harness.stack.issueKey()).key));
    const freshKeys = [...issued];
    const killer = new ConnectionKiller(stack.harness.stack.databaseUrl, [own.pid]);
    const using = await faultUnderLoad(stack, sender, () => killer.run(KILLING_MS, KILL_EVERY_MS), freshKeys);

    expect(killer.terminated).toBeGreaterThan(20);
    expect(using.requests).toBeGreaterThan(10);
    await expectEveryAcceptedOnce(stack, sender, using.unclean);
    const keyAnswers = await Promise.all(issued.map(async (key) => (await api.get('/v1/emails?limit=1', { key })).status));
    expect(keyAnswers).toEqual(issued.map(() => 200));
  }, 90000);

  // Not flapping but gone: new connections refused (a restart that takes a while, a failover) for longer than the
  // leases, the RPC timeout and the pools' acquire timeout.
  it('does the same while the database refuses every connection for a while', async () => {
    const { api } = stack.harness.stack;
    const sender = steadySenderTo(api, 'refused');
    const { rows: [own] } = await stack.harness.db.query('SELECT pg_backend_pid() AS pid');
    const using = await faultUnderLoad(stack, sender, async () => {
      const refusing = await startDatabaseOutage(stack.harness.stack.databaseUrl, [own.pid]);
      // The length of the fault, not a wait for something to happen.
      await new Promise((resolve) => setTimeout(resolve, REFUSING_MS));
      await refusing.end();
    });

    expect(sender.outcomes.some((outcome) => outcome.refusals.length > 0)).toBe(true);
    await expectEveryAcceptedOnce(stack, sender, using.unclean);
  }, 90000);
});
