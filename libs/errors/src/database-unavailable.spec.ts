import { isDatabaseUnavailable } from './database-unavailable';

describe(isDatabaseUnavailable.name, () => {
  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a reset connection', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['an administrator shutting Postgres down', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['Postgres starting up', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    ['too many connections', Object.assign(new Error('sorry, too many clients already'), { code: '53300' })],
    ['a write that reached a read-only standby (a failover)', Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' })],
    ['a connection exception (class 08)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['a QueryFailedError around a shutdown', Object.assign(new Error('terminating connection'), { code: '57P01', driverError: { code: '57P01' } })],
    ['a connection that ended mid-query', new Error('Connection terminated unexpectedly')],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
    ['a database taken out of service', new Error('database "mailroom" is not currently accepting connections')],
    ['a transaction whose connection TypeORM released after it failed', Object.assign(new Error('Query runner already released.'), { name: 'QueryRunnerAlreadyReleasedError' })],
    ['the same through EntityManager.query', Object.assign(new Error('was already released'), { name: 'QueryRunnerProviderAlreadyReleasedError' })],
  ])('is true for %s', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key value'), { code: '23505' })],
    ['a missing table (a bug)', Object.assign(new Error('relation "x" does not exist'), { code: '42P01' })],
    ['a plain error', new Error('boom')],
    ['a string', 'ECONNREFUSED'],
    ['null', null],
  ])('is false for %s', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
