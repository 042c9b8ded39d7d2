import type SMTPPool from 'nodemailer/lib/smtp-pool';
import { SmtpOutcome } from '../smtp-outcome';
import { repliesTooManyRecipients } from '../too-many-recipients';
import { Envelope, ExchangeLimits, RecipientOutcomes, sendRaw } from './smtp-send';

/** The server answered this recipient's RCPT TO that the transaction takes no more recipients. */
export function saysTooManyRecipients(outcome: SmtpOutcome | undefined): boolean {
  return outcome?.recipientRefused === true && repliesTooManyRecipients(outcome.code, outcome.reply);
}

/**
 * Sends the message to every recipient, in as many transactions as the server's recipient limit asks for: those it
 * answered "too many recipients" get the message in a new transaction at once (RFC 5321 §4.5.3.1.10 says the client
 * SHOULD), for as long as each transaction delivers to someone. Gmail takes 100 recipients a message, so without
 * this the rest of a larger email would wait for the retry schedule, a minute or more, for nothing.
 * Every outcome names `host`, the server the pool talks to by the name delivery knows it by (an MX host's, not the
 * address the pool connects to; the relay's).
 */
export async function sendInTransactions(pool: SMTPPool, host: string, envelope: Envelope, raw: Buffer, limits: ExchangeLimits): Promise<RecipientOutcomes> {
  const outcomes = await sendRaw(pool, envelope, raw, limits);
  let round = { to: envelope.to, outcomes };
  for (;;) {
    const rest = round.to.filter((address) => saysTooManyRecipients(round.outcomes.get(address.toLowerCase())));
    // Each round must take someone, so the recipients left shrink and the loop ends.
    const tookSome = [...round.outcomes.values()].some((outcome) => outcome.kind === 'accepted');
    if (!rest.length || !tookSome || limits.shutdown.aborted) break;
    round = { to: rest, outcomes: await sendRaw(pool, { from: envelope.from, to: rest }, raw, limits) };
    for (const [address, outcome] of round.outcomes) outcomes.set(address, outcome);
  }
  for (const [address, outcome] of outcomes) outcomes.set(address, Object.assign({}, outcome, { host }));
  return outcomes;
}
