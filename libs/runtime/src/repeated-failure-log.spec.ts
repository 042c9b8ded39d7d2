import { RepeatedFailureLog } from './repeated-failure-log';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

function setup() {
  let now = 1_000_000;
  const logger = { error: jest.fn(), warn: jest.fn(), log: jest.fn() };
  const log = new RepeatedFailureLog(logger, 'claiming due emails', () => now);
  return { logger, log, advance: (ms: number) => (now += ms) };
}

describe(RepeatedFailureLog.name, () => {
  it('logs the first failure, then one line per 30 s that counts the failures in between', () => {
    const { logger, log, advance } = setup();
    log.failed(refused);
    for (let poll = 0; poll < 150; poll++) {
      advance(200);
      log.failed(refused);
    }
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(logger.warn.mock.calls[1][0]).toMatchObject({ failuresSinceLastLine: 149, failingForMs: 30_000 });
    expect(logger.warn.mock.calls[0][1]).toBe('claiming due emails failed: the database is unavailable; retrying');
  });

  it('says when the step works again, and logs the next failure at once', () => {
    const { logger, log, advance } = setup();
    log.failed(refused);
    advance(5_000);
    log.succeeded();
    expect(logger.log).toHaveBeenCalledWith({ failedForMs: 5_000 }, 'claiming due emails works again');
    log.succeeded();
    expect(logger.log).toHaveBeenCalledTimes(1);
    advance(1_000);
    log.failed(refused);
    expect(logger.warn).toHaveBeenCalledTimes(2);
  });

  it('logs a failure that is not the database being away as an error', () => {
    const { logger, log } = setup();
    log.failed(Object.assign(new Error('relation "emails.emails" does not exist'), { code: '42P01' }));
    expect(logger.error).toHaveBeenCalledWith(expect.objectContaining({ err: 'relation "emails.emails" does not exist' }), 'claiming due emails failed');
    expect(logger.warn).not.toHaveBeenCalled();
  });
});
