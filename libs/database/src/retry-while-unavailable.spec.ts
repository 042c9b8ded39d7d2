import { retryWhileDatabaseUnavailable } from './retry-while-unavailable';

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe(retryWhileDatabaseUnavailable.name, () => {
  it('writes again while the database is unavailable, and returns the first success', async () => {
    const write = jest.fn().mockRejectedValueOnce(refused()).mockRejectedValueOnce(refused()).mockResolvedValue('written');
    const onRetry = jest.fn();
    const failures = { failed: jest.fn(), succeeded: jest.fn() };
    await expect(retryWhileDatabaseUnavailable(write, { giveUpAfterMs: 5000, onRetry, failures })).resolves.toBe('written');
    expect(write).toHaveBeenCalledTimes(3);
    expect(onRetry).toHaveBeenCalledTimes(2);
    expect(failures.failed).toHaveBeenCalledTimes(2);
    expect(failures.succeeded).toHaveBeenCalledTimes(1);
  });

  it('throws any other error at once', async () => {
    const bug = Object.assign(new Error('duplicate key value'), { code: '23505' });
    const write = jest.fn().mockRejectedValue(bug);
    await expect(retryWhileDatabaseUnavailable(write, { giveUpAfterMs: 5000 })).rejects.toBe(bug);
    expect(write).toHaveBeenCalledTimes(1);
  });

  it('gives up with the last error once the time since the first failure is used up', async () => {
    const write = jest.fn().mockRejectedValue(refused());
    const startedAt = Date.now();
    await expect(retryWhileDatabaseUnavailable(write, { giveUpAfterMs: 250 })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(Date.now() - startedAt).toBeLessThan(1000);
    // Waits of 100 ms, then 200 ms: the second would end past the 250 ms allowed, so it is not taken.
    expect(write).toHaveBeenCalledTimes(2);
  });
});
