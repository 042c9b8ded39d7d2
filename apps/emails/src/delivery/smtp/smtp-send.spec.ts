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

  /** A pool whose server answers RCPT TO as `refusals` say, then fails the exchange with `error` (its envelope filled in as nodemailer fills it). */
  const refusingPool = (refusals: Record<string, string>, error: Record<string, unknown>, mailError?: Error) =>
    ({
      send: (mail: PoolMail, callback: SendCallback) => {
        const sent = mail.message.getEnvelope() as { to: string[]; rejectedErrors?: unknown[]; mailError?: Error };
        sent.rejectedErrors = Object.entries(refusals).map(([recipient, response]) => ({ recipient, response, responseCode: Number(response.slice(0, 3)), command: 'RCPT TO' }));
        if (mailError) sent.mailError = mailError;
        callback(Object.assign(new Error('failed'), error));
      },
    }) as unknown as SMTPPool;
  const twoRecipients = { from: 'a@sender.test', to: ['ann@example.test', 'gone@example.test'] };
  const limits = { messageTimeoutMs: 60_000, shutdown: new AbortController().signal };

  it('keeps a refusal given at RCPT TO when the connection is then lost, as nodemailer reports a 421 that arrives with the close', async () => {
    const pool = refusingPool({ 'gone@example.test': '550 5.1.1 No such user' }, { code: 'ECONNECTION', command: 'CONN', message: 'Connection closed unexpectedly' });
    const outcomes = await sendRaw(pool, twoRecipients, raw, limits);
    expect(outcomes.get('gone@example.test')).toMatchObject({ kind: 'permanent', code: 550, recipientRefused: true });
    expect(outcomes.get('ann@example.test')).toMatchObject({ kind: 'temporary', code: null, hostUnavailable: true });
  });

  it('gives every recipient the refusal of MAIL FROM, not the replies its pipelined RCPT TO got for want of a transaction', async () => {
    const refusal = { code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 451, response: '451 4.7.1 Try again later' };
    const pool = refusingPool({ 'gone@example.test': '503 5.5.1 Error: need MAIL command' }, refusal, new Error('Mail command failed'));
    const outcomes = await sendRaw(pool, twoRecipients, raw, limits);
    expect(outcomes.get('gone@example.test')).toMatchObject({ kind: 'temporary', code: 451 });
    expect(outcomes.get('ann@example.test')).toMatchObject({ kind: 'temporary', code: 451 });
  });
});
