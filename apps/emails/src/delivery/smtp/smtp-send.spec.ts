import { getEventListeners } from 'node:events';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import { sendRaw } from './smtp-send';

type SendCallback = (error: Error | null, info?: unknown) => void;
type PoolMail = { data: { signal: AbortSignal }; message: { getEnvelope(): { to: string[] } } };

/** A pool whose server takes every message at once. */
const acceptingPool = {
  send: (mail: PoolMail, callback: SendCallback) => callback(null, { accepted: mail.message.getEnvelope().to, response: '250 2.0.0 queued' }),
} as unknown as SMTPPool;

/** A pool whose server never answers: the exchange ends only when its signal aborts, as nodemailer's pool ends it. */
const silentPool = {
  send: (mail: PoolMail, callback: SendCallback) => mail.data.signal.addEventListener('abort', () => callback(new Error('aborted')), { once: true }),
} as unknown as SMTPPool;

/** The signals Node still holds for `signal` (AbortSignal.any registers each one it builds there, and never lets go on Node 20). */
function dependantsOf(signal: AbortSignal): number {
  const key = Object.getOwnPropertySymbols(signal).find((symbol) => symbol.description === 'kDependantSignals');
  return key ? ((signal as unknown as Record<symbol, Set<unknown>>)[key]?.size ?? 0) : 0;
}

const envelope = { from: 'a@sender.test', to: ['b@example.test'] };
const raw = Buffer.from('Subject: hi\r\n\r\nhello\r\n');

describe('sendRaw', () => {
  it('leaves nothing behind on the shutdown signal, which lives as long as the process, however many messages it sends', async () => {
    const shutdown = new AbortController();
    for (let index = 0; index < 2000; index += 1) {
      const outcomes = await sendRaw(acceptingPool, envelope, raw, { messageTimeoutMs: 60_000, shutdown: shutdown.signal });
      expect(outcomes.get('b@example.test')).toMatchObject({ code: 250 });
    }
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
    expect(dependantsOf(shutdown.signal)).toBe(0);
  });

  it('cuts an exchange off at shutdown', async () => {
    const shutdown = new AbortController();
    const sent = sendRaw(silentPool, envelope, raw, { messageTimeoutMs: 60_000, shutdown: shutdown.signal });
    shutdown.abort();
    expect((await sent).get('b@example.test')).toMatchObject({ kind: 'temporary', code: null, reply: expect.stringContaining('shut down') });
  });

  it('cuts an exchange off at its deadline', async () => {
    const shutdown = new AbortController();
    const outcomes = await sendRaw(silentPool, envelope, raw, { messageTimeoutMs: 20, shutdown: shutdown.signal });
    expect(outcomes.get('b@example.test')).toMatchObject({ kind: 'temporary', code: null, reply: expect.stringContaining('SMTP_MESSAGE_TIMEOUT_MS (20 ms)') });
  });
});
