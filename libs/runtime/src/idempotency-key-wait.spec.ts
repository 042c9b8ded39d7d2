import type { MailroomConfig } from '@mailroom/config';
import { DomainError } from '@mailroom/errors';
import { IdempotencyKeyWait, KEY_IN_USE } from './idempotency-key-wait';
import { inRequestWaitMs } from './in-request-wait';

// The wait is half of it: 60 ms.
const wait = new IdempotencyKeyWait({ RPC_TIMEOUT_MS: 120 } as MailroomConfig);

describe(IdempotencyKeyWait.name, () => {
  it('tries again while the key is in use, and answers what the first attempt that finds it free answers', async () => {
    const answers: Array<string | typeof KEY_IN_USE> = [KEY_IN_USE, KEY_IN_USE, 'stored'];
    const attempt = jest.fn(async () => answers.shift()!);
    await expect(wait.untilFree('k1', new Date(), attempt)).resolves.toBe('stored');
    expect(attempt).toHaveBeenCalledTimes(3);
  });

  it('answers 409 saying the key is still in use once its wait from the start of the request has passed, having tried more than once', async () => {
    const attempt = jest.fn(async () => KEY_IN_USE);
    const started = Date.now();
    const refused = wait.untilFree('k2', new Date(started), attempt);
    await expect(refused).rejects.toMatchObject({ constructor: DomainError, code: 'idempotency_key_in_use' });
    await expect(refused).rejects.toThrow("A request with the Idempotency-Key 'k2' is still being processed; retry it later with the same key.");
    expect(Date.now() - started).toBeGreaterThanOrEqual(inRequestWaitMs(120));
    expect(attempt.mock.calls.length).toBeGreaterThan(1);
  });

  it('tries once more, and waits no longer, for a request that spent its wait before it came to the key', async () => {
    const attempt = jest.fn(async () => KEY_IN_USE);
    await expect(wait.untilFree('k3', new Date(Date.now() - 1000), attempt)).rejects.toThrow(/still being processed/);
    expect(attempt).toHaveBeenCalledTimes(1);
  });
});
