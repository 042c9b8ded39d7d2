import { getMaxListeners } from 'node:events';
import SMTPPool from 'nodemailer/lib/smtp-pool';
import { IDLE_CLOSE_MS, TransporterPool } from './transporter-pool';
import { exchangeSignal } from './exchange-signal';

const OPTIONS = () => ({ host: '192.0.2.1', port: 25 });

/** A pool over `maxPools` pools, the keys of the pools it handed out and of those it closed. */
function setup(maxPools: number) {
  const closed: string[] = [];
  const keyOf = new Map<SMTPPool, string>();
  jest.spyOn(SMTPPool.prototype, 'close').mockImplementation(function (this: SMTPPool) {
    closed.push(keyOf.get(this) ?? 'a pool never handed out');
  });
  const pools = new TransporterPool(60_000, { maxPools });
  const get = (key: string) => {
    const pool = pools.get(key, OPTIONS);
    keyOf.set(pool, key);
    return pool;
  };
  /** The pool has a message queued or being sent (`pending` of them). */
  const busy = (pool: SMTPPool, pending = 1) => jest.spyOn(pool, 'pendingCount').mockReturnValue(pending);
  const open = () => [...keyOf.values()].filter((key) => !closed.includes(key));
  return { get, busy, closed, open };
}

describe(TransporterPool.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('holds at most maxPools pools however many hosts it is asked for, closing those it lets go', () => {
    const { get, open, closed } = setup(10);
    for (let host = 0; host < 200; host++) get(`mx${host}.example|192.0.2.${host}:25|starttls`);
    expect(open()).toHaveLength(10);
    expect(closed).toHaveLength(190);
  });

  it('lets the least recently used pool go first, and hands the same pool back while it is kept', () => {
    const { get, closed } = setup(2);
    const a = get('a');
    get('b');
    expect(get('a')).toBe(a);
    get('c');
    expect(closed).toEqual(['b']);
    expect(get('a')).toBe(a);
  });

  it('never closes a pool with a message in flight to make room: the bound waits for one to be idle', () => {
    const { get, busy, closed, open } = setup(2);
    busy(get('a'));
    get('b');
    busy(get('c'));
    expect(closed).toEqual(['b']);
    get('d');
    expect(closed).toEqual(['b']);
    expect(open()).toEqual(['a', 'c', 'd']);
  });

  it('closes a pool unused for the idle time, but not one whose message is still in flight', () => {
    const { get, busy, closed } = setup(100);
    const pending = busy(get('slow'));
    get('idle');
    jest.advanceTimersByTime(IDLE_CLOSE_MS + 1);
    get('other');
    expect(closed).toEqual(['idle']);
    pending.mockReturnValue(0);
    get('other');
    expect(closed).toEqual(['idle', 'slow']);
  });
});

describe(`${TransporterPool.name} shutdown signal`, () => {
  // The warning itself goes to the process of Node's own realm, which a jest sandbox does not see: the limit it is
  // measured against is read instead (Node warns once an EventTarget holds more listeners than that).
  it('sets no bound on the exchanges listening, so as many as the worker runs at once raise no leak warning', () => {
    const pools = new TransporterPool(60_000);
    expect(getMaxListeners(pools.limits.shutdown)).toBe(Infinity);
  });

  it('cuts every exchange in flight off at abort', () => {
    const pools = new TransporterPool(60_000);
    const exchanges = Array.from({ length: 128 }, () => exchangeSignal(pools.limits));
    pools.abort();
    expect(exchanges.filter((exchange) => exchange.signal.aborted)).toHaveLength(128);
    for (const exchange of exchanges) exchange.release();
  });
});
