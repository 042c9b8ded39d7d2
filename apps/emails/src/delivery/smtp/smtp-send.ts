import { Readable } from 'node:stream';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import { outcomeFromError, outcomeFromReply, SmtpErrorLike, SmtpOutcome } from '../smtp-outcome';
import { exchangeSignal } from './exchange-signal';

export interface Envelope {
  from: string;
  to: string[];
}

/** What bounds one exchange: its own deadline, and the transport's shutdown. */
export interface ExchangeLimits {
  messageTimeoutMs: number;
  /** Aborted when the emails process shuts down: exchanges still running then are cut off. */
  shutdown: AbortSignal;
}

/** The outcome of one SMTP transaction for each envelope recipient, keyed by lower-case address. */
export type RecipientOutcomes = Map<string, SmtpOutcome>;

interface RejectedError extends SmtpErrorLike {
  recipient?: string;
}

/** The envelope as nodemailer's connection leaves it after the replies to MAIL FROM and RCPT TO. */
interface SentEnvelope extends Envelope {
  rejectedErrors?: RejectedError[];
  /** Set when the server refused MAIL FROM. */
  mailError?: unknown;
}

interface SendInfo {
  accepted?: Array<string | { address: string }>;
  rejected?: Array<string | { address: string }>;
  rejectedErrors?: RejectedError[];
  response?: string;
}

const bare = (address: string | { address: string }) => (typeof address === 'string' ? address : address.address).toLowerCase();

/**
 * Sends one raw message to every envelope recipient in one SMTP transaction
 * and says what happened to each: a recipient refused at RCPT TO gets that
 * reply; the others share the reply to DATA, or the error that ended the
 * session (connection refused, timeout, TLS failure: no reply code), marked
 * sharedWithOthers when there are several of them.
 *
 * The whole exchange, from waiting for a pooled connection to the reply to
 * the final dot, must end within `messageTimeoutMs`. The socket's inactivity
 * timeout alone never fires against a server that trickles a reply a byte at
 * a time, and the lease, renewed while the attempt runs, would hold the email
 * for ever; past the deadline the pool closes the connection. A shutdown
 * cuts it off the same way, so the attempt is recorded and the email handed
 * back rather than left under its lease.
 */
export async function sendRaw(pool: SMTPPool, envelope: Envelope, raw: Buffer, limits: ExchangeLimits): Promise<RecipientOutcomes> {
  const outcomes: RecipientOutcomes = new Map();
  const rejectedOutcomes = (errors: RejectedError[] = []) => {
    for (const error of errors) if (error.recipient) outcomes.set(error.recipient.toLowerCase(), outcomeFromError(error));
  };
  const exchange = exchangeSignal(limits);
  let messageStarted = false;
  let messageSent = false;
  const mail = rawMail(envelope, raw, exchange.signal, {
    onFirstRead: () => (messageStarted = true),
    onAllRead: () => (messageSent = true),
  });
  try {
    const info = await new Promise<SendInfo>((resolve, reject) => pool.send(mail.mail, (error, sent) => (error ? reject(error) : resolve(sent as SendInfo))));
    rejectedOutcomes(info.rejectedErrors);
    const accepted = outcomeFromReply(info.response ?? '250 OK');
    for (const address of info.accepted ?? []) outcomes.set(bare(address), accepted);
  } catch (error) {
    const cutOffBecause = limits.shutdown.aborted
      ? 'the emails process shut down during the exchange'
      : exchange.deadlinePassed()
        ? `the exchange did not end within SMTP_MESSAGE_TIMEOUT_MS (${limits.messageTimeoutMs} ms)`
        : undefined;
    const failure = (cutOffBecause ? cutOff(cutOffBecause, messageStarted) : error) as SmtpErrorLike & { rejectedErrors?: RejectedError[] };
    rejectedOutcomes(failure.rejectedErrors ?? refusalsThatStand(failure, mail.lastEnvelope()));
    const sharing = envelope.to.filter((address) => !outcomes.has(address.toLowerCase()));
    const reply = messageSent ? lostAfterTheMessage(failure) : outcomeFromError(failure);
    const shared: SmtpOutcome = sharing.length > 1 ? { sharedWithOthers: true, ...reply } : reply;
    for (const address of sharing) outcomes.set(address.toLowerCase(), shared);
  } finally {
    exchange.release();
  }
  for (const address of envelope.to) {
    if (!outcomes.has(address.toLowerCase())) outcomes.set(address.toLowerCase(), { kind: 'temporary', code: null, reply: 'no reply for this recipient' });
  }
  return outcomes;
}

/**
 * The exchange was cut off: it outlasted SMTP_MESSAGE_TIMEOUT_MS, or the process shut down. No reply code: a timeout,
 * which the next MX host may take over when the message had not started (the
 * host never took the transaction), and which waits for the retry schedule
 * once it had all gone out. Once DATA was accepted (the message started),
 * the RCPT TO refusals stand for their recipients, as after any failure at DATA.
 */
function cutOff(why: string, messageStarted: boolean): SmtpErrorLike {
  return { code: 'ETIMEDOUT', message: why, command: messageStarted ? 'DATA' : 'CONN' };
}

/**
 * nodemailer puts the RCPT TO refusals on the error only when every recipient
 * was refused; otherwise they are only on the envelope its connection filled
 * in. A refusal the server gave stands for its recipient whatever ended the
 * transaction after it: a reply to DATA (a 452 "too many recipients" is
 * retried even when the message then got a 5xx, and a 550 bounces even when
 * the message then got a 4xx), or the end of the session (a 421, which
 * nodemailer may report as a lost connection when the close arrives with it).
 * Handed on to the next MX host with the others, a recipient the first host
 * refused as unknown was taken by a backup MX that accepts any address of the
 * domain, and recorded as delivered. Not after a refused MAIL FROM: the
 * pipelined RCPT TO replies then only say there was no transaction.
 */
function refusalsThatStand(error: SmtpErrorLike, envelope: SentEnvelope | undefined): RejectedError[] | undefined {
  if (/^MAIL FROM/.test(error.command ?? '') || envelope?.mailError) return undefined;
  return envelope?.rejectedErrors;
}

/**
 * The connection failed with no reply after the whole message went out: the
 * host may have accepted it and only the reply was lost (RFC 5321 §4.1.1.4,
 * RFC 1047). Still temporary, but not a host that "could not be reached":
 * handing the message to the next MX host now would risk a second copy, so it
 * waits for the retry schedule, as Postfix defers it.
 */
function lostAfterTheMessage(error: SmtpErrorLike): SmtpOutcome {
  const outcome = outcomeFromError(error);
  if (outcome.code !== null) return outcome;
  return { kind: 'temporary', code: null, reply: `${outcome.reply} (after the message was sent; it may have been delivered)` };
}

/**
 * The mail as an SMTP pool reads it: its envelope, and a stream of the
 * message's bytes. nodemailer's Mailer builds the same object from
 * sendMail({raw}), but streams the bytes through a MIME tree and four piped
 * streams (0.72–0.80 ms of CPU per send on a loopback sink, against 0.24 ms
 * this way); the pool itself (sessions, PIPELINING, dot-stuffing, requeueing
 * a message a reused session dropped before its first byte) is untouched. The
 * message-id is only for nodemailer's logs, which Mailroom leaves off.
 */
function rawMail(
  envelope: Envelope,
  raw: Buffer,
  signal: AbortSignal,
  progress: { onFirstRead: () => void; onAllRead: () => void },
): { mail: Parameters<SMTPPool['send']>[0]; lastEnvelope: () => SentEnvelope | undefined } {
  // The connection records the replies to RCPT TO on the envelope object it was handed (the pool asks
  // for a fresh one each time it sends or requeues the message); the last one is this attempt's.
  let last: SentEnvelope | undefined;
  const mail = {
    // The pool fails the message when the signal aborts: dropped from its queue, or its connection closed.
    data: { signal },
    message: {
      getEnvelope: () => (last = { from: envelope.from, to: [...envelope.to] }),
      messageId: () => '',
      getHeader: () => '',
      // The pool creates the stream before the connection sends DATA; it is read only once the server said 354.
      createReadStream: () =>
        new Readable({
          read() {
            progress.onFirstRead();
            this.push(raw);
            this.push(null);
          },
        }).once('end', progress.onAllRead),
    },
  };
  return { mail: mail as unknown as Parameters<SMTPPool['send']>[0], lastEnvelope: () => last };
}
