import type SMTPPool from 'nodemailer/lib/smtp-pool';
import { enhancedStatusOf } from '../mailbox-refusal';
import { SmtpOutcome } from '../smtp-outcome';
import { Envelope, ExchangeLimits, RecipientOutcomes, sendRaw } from './smtp-send';

/**
 * A server's answer that it takes no more recipients in this transaction (RFC 5321 §4.5.3.1.10: 452, enhanced
 * code 4.5.3 when it gives one), not that this mailbox is short of room (452 4.2.2) or any other 452.
 */
export function saysTooManyRecipients(outcome: SmtpOutcome | undefined): boolean {
  if (!outcome?.recipientRefused || outcome.code !== 452) return false;
  const enhanced = enhancedStatusOf(outcome.reply);
  return enhanced === null || enhanced === '4.5.3';
}

/**
 * Sends the message to every recipient, in as many transactions as the server's recipient limit asks for: those it
 * answered "too many recipients" get the message in a new transaction at once (RFC 5321 §4.5.3.1.10 says the client
 * SHOULD), for as long as each transaction delivers to someone. Gmail takes 100 recipients a message, so without
 * this the rest of a larger email would wait for the retry schedule, a minute or more, for nothing.
 */
export async function sendInTransactions(pool: SMTPPool, envelope: Envelope, raw: Buffer, limits: ExchangeLimits): Promise<RecipientOutcomes> {
  const outcomes = await sendRaw(pool, envelope, raw, limits);
  let round = { to: envelope.to, outcomes };
  for (;;) {
    const rest = round.to.filter((address) => saysTooManyRecipients(round.outcomes.get(address.toLowerCase())));
    // Each round must take someone, so the recipients left shrink and the loop ends.
    const tookSome = [...round.outcomes.values()].some((outcome) => outcome.kind === 'accepted');
    if (!rest.length || !tookSome || limits.shutdown.aborted) return outcomes;
    round = { to: rest, outcomes: await sendRaw(pool, { from: envelope.from, to: rest }, raw, limits) };
    for (const [address, outcome] of round.outcomes) outcomes.set(address, outcome);
  }
}
