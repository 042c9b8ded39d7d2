import type { DkimSigningKey, OutgoingEmail } from './outgoing-email';

/** What MessageBuilder posts to a build thread: one message to compose and, with a key, sign. */
export interface BuildRequest {
  id: number;
  email: OutgoingEmail;
  key: DkimSigningKey | null;
}

/** The thread's answer: the message's bytes (their buffer transferred, not copied), or why it could not be built. */
export type BuildReply = { id: number; bytes: Uint8Array } | { id: number; error: string };

/** What a build thread posts once it has loaded and takes builds: its stall clock (BuildThread) starts from then, not from its start. */
export const THREAD_READY = { ready: true } as const;

/** Everything a build thread posts. */
export type ThreadMessage = BuildReply | typeof THREAD_READY;
