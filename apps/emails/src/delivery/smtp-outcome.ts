import { enhancedStatusOf } from './mailbox-refusal';
import { repliesTooManyRecipients } from './too-many-recipients';

/**
 * What one SMTP attempt means for one recipient (RFC 5321 §4.2.1): 2xx is
 * accepted, 4xx is temporary (retry), 5xx is permanent (bounce). A failure
 * with no reply at all — refused connection, timeout, TLS failure, DNS
 * trouble — is temporary, because the next attempt may well succeed.
 */
export type OutcomeKind = 'accepted' | 'temporary' | 'permanent';

export interface SmtpOutcome {
  kind: OutcomeKind;
  /** The reply code, null when the server never answered. */
  code: number | null;
  /** The server's reply text, or what went wrong when there was none. */
  reply: string;
  /**
   * The mail server this outcome is of, by name: the MX host that answered (or could not be reached), or the relay.
   * None when no server was tried (no MX host resolved, a policy held the mail back) and in test mode.
   */
  host?: string;
  /**
   * The host never began a mail transaction: it could not be reached, or it
   * refused the session itself (its greeting, EHLO/HELO, STARTTLS or AUTH
   * reply). Another MX host of the domain may take the mail (RFC 5321 §5.1).
   */
  hostUnavailable?: true;
  /**
   * The host took the session but put the mail off: a 4xx to MAIL FROM, to this recipient's RCPT TO, to the DATA
   * command or to the message after its final dot, so it did not take the mail. Another MX host of the domain may
   * take it now, as Postfix (smtp_trouble.c) and Exim try it in the same delivery; the reply is the outcome only
   * when no host is left to try. Not a full mailbox (4.2.2), nor a transaction full of recipients (see
   * putOffByThisHost).
   */
  hostDeferred?: true;
  /**
   * A permanent refusal of the envelope sender (MAIL FROM): it bounces the
   * message but says nothing against the recipient's address.
   */
  senderRefused?: true;
  /** The refusal was the reply to this recipient's own RCPT TO, not to the message. */
  recipientRefused?: true;
  /**
   * The reply answered a message that carried other recipients too (a refusal at DATA, after their RCPT TO were
   * accepted): it is the outcome of each, but it cannot say which of their mailboxes is bad.
   */
  sharedWithOthers?: true;
  /**
   * The session broke in TLS (a STARTTLS handshake the two sides could not
   * agree on) before the message went out: the host may well take it in
   * plaintext. Set with hostUnavailable.
   */
  tlsFailed?: true;
  /**
   * The host refused the STARTTLS command itself (or does not offer it, when TLS was required): set with
   * hostUnavailable. Not tlsFailed: a host that refuses STARTTLS is not asked again in plaintext.
   */
  startTlsRefused?: true;
  /**
   * With tlsFailed: Node's or OpenSSL's code for what failed (ERR_TLS_CERT_ALTNAME_INVALID, CERT_HAS_EXPIRED…), or
   * nodemailer's (ETLS) when there is none; what a TLS report (RFC 8460) names the failure by.
   */
  tlsCode?: string;
}

/**
 * nodemailer's names for the steps of a session before MAIL FROM. A refusal
 * there says nothing about the recipients, so even a 5xx is temporary: a
 * relay that rejects Mailroom's password, or a host that greets with
 * "554 no SMTP service", must not bounce and suppress every recipient
 * (Postfix likewise defers on both). The mail waits for the next attempt,
 * and fails, without a bounce, when the retry schedule runs out.
 */
const SESSION_COMMANDS = /^(CONN|EHLO|HELO|STARTTLS|AUTH\b)/;

export function classifyReplyCode(code: number): OutcomeKind {
  if (code >= 200 && code < 300) return 'accepted';
  if (code >= 500 && code < 600) return 'permanent';
  return 'temporary';
}

/** An outcome from a reply line such as '550 5.1.1 No such user'. */
export function outcomeFromReply(reply: string): SmtpOutcome {
  const match = /^([2-5]\d\d)[ -]?/.exec(reply.trim());
  if (!match) return { kind: 'temporary', code: null, reply: reply.trim() };
  const code = Number(match[1]);
  return { kind: classifyReplyCode(code), code, reply: reply.trim() };
}

/** The shape of a nodemailer SMTP error: a reply code when the server answered, an error code when it did not. */
export interface SmtpErrorLike {
  message?: string;
  code?: string;
  responseCode?: number;
  response?: string;
  /** The SMTP step that failed: CONN (connection and greeting), EHLO, MAIL FROM, RCPT TO, DATA… */
  command?: string;
  /** For a socket error: Node's own code (ERR_SSL_… for a TLS failure), which nodemailer moves here from `code`. */
  originalCode?: string;
  /** For a TLS failure: OpenSSL's library, 'SSL routines'. */
  library?: string;
  /** For ETIMEDOUT: which of nodemailer's timers fired (UPGRADE_TIMEOUT: the STARTTLS handshake's). */
  timeoutType?: string;
}

/**
 * Node's codes for a certificate that failed its check (only where one is checked: an enforced MTA-STS policy):
 * a name it does not cover (ERR_TLS_CERT_ALTNAME_INVALID), or OpenSSL's chain verification errors.
 */
const CERTIFICATE_REFUSED = /^(ERR_TLS_CERT_|UNABLE_TO_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$)/;

/**
 * nodemailer reports a failed STARTTLS as ETLS, or, when OpenSSL ends the handshake, as a socket error from OpenSSL,
 * or, when the handshake never ends (a middlebox that swallows it, say), as its UPGRADE_TIMEOUT, or, when the
 * certificate was checked and refused, as a socket error with Node's code for that.
 */
function isTlsFailure(error: SmtpErrorLike): boolean {
  if (error.code === 'ETIMEDOUT' && error.timeoutType === 'UPGRADE_TIMEOUT') return true;
  const socketCode = error.originalCode ?? '';
  return error.code === 'ETLS' || /^ERR_SSL_/.test(socketCode) || CERTIFICATE_REFUSED.test(socketCode) || error.library === 'SSL routines';
}

/** The steps of the mail transaction: MAIL FROM, RCPT TO, and DATA (nodemailer's name for both the DATA command and the message after it). */
const TRANSACTION_COMMANDS = /^(MAIL FROM|RCPT TO|DATA)/;

/** A 4xx with this enhanced code says the recipient's mailbox is full: the same at every MX host of its domain. */
const MAILBOX_FULL = '4.2.2';

/**
 * Marks a 4xx inside the mail transaction as the host putting the mail off (hostDeferred), which sends the recipient
 * on to the next MX host. Greylisting (450/451 at RCPT TO), a local error (451 to MAIL FROM or after the dot) or a
 * host short of room (452 4.3.1) belong to that host, and a backup MX may take the mail now instead of it waiting
 * for the retry schedule, which asks the same host first. A full mailbox (4.2.2) does not: it is full whichever
 * host is asked, and a backup MX that accepted the mail would only queue it for the same mailbox, showing it
 * delivered while it is not, and report a failure later by a bounce message, away from the recipient's outcome.
 */
function putOffByThisHost(error: SmtpErrorLike, outcome: SmtpOutcome): SmtpOutcome {
  const soft = outcome.code !== null && outcome.code >= 400 && outcome.code < 500;
  if (!soft || !TRANSACTION_COMMANDS.test(error.command ?? '') || enhancedStatusOf(outcome.reply) === MAILBOX_FULL) return outcome;
  return { hostDeferred: true, ...outcome };
}

/** The reply came after the message's final dot (nodemailer's EMESSAGE), not to a command before it. */
function repliesToTheMessage(error: SmtpErrorLike): boolean {
  return /^DATA/.test(error.command ?? '') && error.code === 'EMESSAGE';
}

/** An outcome from a failed send: the server's reply when there is one, otherwise a temporary connection failure. */
export function outcomeFromError(error: SmtpErrorLike): SmtpOutcome {
  if (typeof error.responseCode === 'number' && error.responseCode >= 200) {
    const reply = (error.response ?? `${error.responseCode}`).trim();
    if (SESSION_COMMANDS.test(error.command ?? '')) {
      const refusal: SmtpOutcome = { kind: 'temporary', code: error.responseCode, reply, hostUnavailable: true };
      return /^STARTTLS/.test(error.command ?? '') ? Object.assign(refusal, { startTlsRefused: true as const }) : refusal;
    }
    // A 421 closes the session (RFC 5321 §3.8): before the message (to MAIL FROM, RCPT TO or the DATA command itself,
    // whose refusal nodemailer reports as EENVELOPE) it ends the host's session, not a transaction it took (a host
    // that allows N messages per connection, say), so the next MX host may take the mail, as it does when the
    // connection is lost at that point. Waiting for a retry instead went back to the same host first, every time.
    if (error.responseCode === 421 && !repliesToTheMessage(error)) return { kind: 'temporary', code: 421, reply, hostUnavailable: true };
    const kind = classifyReplyCode(error.responseCode);
    // A relay refusing bounces@<domain> (not allowed to send as it, say) must not suppress every recipient.
    if (kind === 'permanent' && /^MAIL FROM/.test(error.command ?? '')) return { kind, code: error.responseCode, reply, senderRefused: true };
    if (/^RCPT TO/.test(error.command ?? '')) {
      // The transaction was full, not the address bad: sent again in another transaction, never bounced.
      if (repliesTooManyRecipients(error.responseCode, reply)) return { kind: 'temporary', code: error.responseCode, reply, recipientRefused: true };
      return putOffByThisHost(error, { kind, code: error.responseCode, reply, recipientRefused: true });
    }
    return putOffByThisHost(error, { kind, code: error.responseCode, reply });
  }
  const what = error.code ? `${error.code}: ` : '';
  const reply = `${what}${error.message ?? 'connection failed'}`.slice(0, 1000);
  if (isTlsFailure(error)) return { kind: 'temporary', code: null, reply, hostUnavailable: true, tlsFailed: true, tlsCode: error.originalCode ?? error.code ?? 'ETLS' };
  return { kind: 'temporary', code: null, reply, hostUnavailable: true };
}
