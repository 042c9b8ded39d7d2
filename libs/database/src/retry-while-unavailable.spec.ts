import { retryWhileDatabaseUnavailable } from './retry-while-unavailable';
import { isTransactionConflict } from './transaction-outcome';

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

  it('writes again after a failure alsoRetry accepts, such as a deadlock, and only then', async () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const write = jest.fn().mockRejectedValueOnce(deadlock).mockResolvedValue('written');
    await expect(retryWhileDatabaseUnavailable(write, { alsoRetry: isTransactionConflict })).resolves.toBe('written');
    expect(write).toHaveBeenCalledTimes(2);
    await expect(retryWhileDatabaseUnavailable(jest.fn().mockRejectedValue(deadlock), { giveUpAfterMs: 5000 })).rejects.toBe(deadlock);
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
