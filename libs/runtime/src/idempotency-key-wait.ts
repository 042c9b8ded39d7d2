import { Inject, Injectable } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { MAILROOM_CONFIG } from './config.module';
import { inRequestWaitMs } from './in-request-wait';
import { idempotencyKeyWaits } from './metrics';

/** The first pause between two looks at a key in use, doubled up to the longest: most stores take a few ms. */
const FIRST_PAUSE_MS = 10;
const LONGEST_PAUSE_MS = 100;

/** What an attempt answers when another request's transaction is storing the key. */
export const KEY_IN_USE = Symbol('KeyInUse');

/**
 * Waits for a request that is storing the same Idempotency-Key, by trying
 * again after short pauses, holding no database connection in between:
 * waiting in Postgres on the key's row held a pooled connection per waiter,
 * so the retries of one stalled request took the pool from every other
 * request (and, in the emails service, from the delivery worker). The wait
 * ends inRequestWaitMs after the request's start (2 s, at most half of
 * RPC_TIMEOUT_MS; for a send, where its wait for the domains service ends),
 * so the 409 that tells the client to retry comes before the gateway gives
 * up with a 503.
 */
@Injectable()
export class IdempotencyKeyWait {
  private readonly waitMs: number;

  constructor(@Inject(MAILROOM_CONFIG) config: Pick<MailroomConfig, 'RPC_TIMEOUT_MS'>) {
    this.waitMs = inRequestWaitMs(config.RPC_TIMEOUT_MS);
  }

  /** `attempt`'s answer once it is not KEY_IN_USE; 409 when the key is still in use `waitMs` after `since`. */
  async untilFree<T>(key: string, since: Date, attempt: () => Promise<T | typeof KEY_IN_USE>): Promise<T> {
    const deadline = since.getTime() + this.waitMs;
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(2 * pause, LONGEST_PAUSE_MS)) {
      const answer = await attempt();
      if (answer !== KEY_IN_USE) return answer;
      if (pause === FIRST_PAUSE_MS) idempotencyKeyWaits.inc();
      const left = deadline - Date.now();
      if (left <= 0) {
        // Not `conflict`, which says the key was used with another body and is final: this one is to be retried.
        throw new DomainError(ErrorCode.IdempotencyKeyInUse, `A request with the Idempotency-Key '${key}' is still being processed; retry it later with the same key.`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    }
  }
}
