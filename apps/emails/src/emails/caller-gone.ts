import { performance } from 'node:perf_hooks';
import type { RpcDeadline } from '@mailroom/runtime';
import { emailsDroppedPastDeadline } from './dropped-sends-metrics';

/** What the write answers for an email it did not write, because nobody waited for it any more. */
export const CALLER_GONE = Symbol('CallerGone');

/**
 * Whether nobody waits for the write of `emails` any more: their request's
 * deadline (none: the caller waits for ever) passed by `now`. Then they are
 * counted as dropped, and their write must not begin. Asked once the write
 * holds its connection, the last moment before its transaction begins: the
 * wait for a connection is where a slow database keeps sends waiting.
 */
export function callerGone(deadline: RpcDeadline | undefined, emails: number, now = performance.now()): boolean {
  if (!deadline?.passed(now)) return false;
  emailsDroppedPastDeadline.inc(emails);
  return true;
}
