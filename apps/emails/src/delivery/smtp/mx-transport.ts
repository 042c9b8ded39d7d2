import { inSendingOrder, sendingOrderKey } from '../mx/mx-order';
import { MailRoute, MailRouter } from '../mx/mx-resolver';
import { SmtpOutcome } from '../smtp-outcome';
import { DeliveryTransport } from './delivery-transport';
import { sendInTransactions } from './send-in-transactions';
import { RecipientOutcomes } from './smtp-send';
import { TransporterPool } from './transporter-pool';

export interface MxSettings {
  port: number;
  heloName: string;
  timeoutMs: number;
  /** The whole exchange of one message (see sendRaw). */
  messageTimeoutMs: number;
  maxConnections: number;
}

/**
 * How many hosts may put one message off (a 4xx inside the transaction, see hostDeferred) in one attempt before its
 * recipients wait for the retry schedule: Postfix's smtp_mx_session_limit default. Where every host greylists,
 * asking a third would only hold the delivery slot longer for the same answer. A host that put the mail off is not
 * asked again at its other addresses (its IPv6 and IPv4 ones, say): greylisting or a local error is the host's,
 * whichever address answers, and asking it twice would use up the limit before a backup MX was reached. Hosts that
 * could not be reached or refused the session are not counted, as Postfix does not count sessions that never got
 * through EHLO, so the walk over unreachable hosts is as long as it was.
 */
const HOSTS_PUTTING_OFF_LIMIT = 2;

/** The recipient was not taken by the host, which ended or refused the session, or put the mail off: the next host may take it. */
const goesOnToTheNextHost = (outcome: SmtpOutcome | undefined) => outcome?.hostUnavailable === true || outcome?.hostDeferred === true;

/**
 * A host that could not be reached says less than an earlier host's 4xx: "connection refused" from a backup MX would
 * hide the preferred host's "451 4.7.1 greylisted" (the reason the mail waits) from the recipient's reply and the
 * delivery_delayed event. As Postfix reports a server's reply over a later connection failure.
 */
const keepsEarlierReply = (earlier: SmtpOutcome | undefined, later: SmtpOutcome) => earlier?.hostDeferred === true && later.hostUnavailable === true;

const every = (outcomes: RecipientOutcomes, test: (outcome: SmtpOutcome) => boolean | undefined) => [...outcomes.values()].every(test);

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/**
 * Direct (mx) mode: recipients are grouped by domain, domains that share
 * their mail hosts in the same order of preference are grouped again, and
 * each group gets one message over one pooled connection. Hosts are tried in
 * MX order while they cannot be reached or refuse the session; the first host
 * that takes the transaction decides for the recipients it accepted or refused
 * for good (2xx, 5xx), and those it never took (a session it ended before the
 * message) or put off (a 4xx in the transaction, see hostDeferred) go on, the
 * last host's reply standing when none takes them (unless that host could not be reached and an earlier one put the
 * mail off: see keepsEarlierReply). STARTTLS
 * is opportunistic (a failed handshake is retried in plaintext) and
 * certificates are not checked, as between MTAs on the public internet.
 */
export class MxTransport implements DeliveryTransport {
  readonly acceptedStatus = 'delivered' as const;
  private readonly pool: TransporterPool;

  constructor(
    private readonly resolver: MailRouter,
    private readonly settings: MxSettings,
  ) {
    this.pool = new TransporterPool(settings.messageTimeoutMs);
  }

  async deliver(envelopeFrom: string, recipients: string[], raw: Buffer): Promise<RecipientOutcomes> {
    const outcomes: RecipientOutcomes = new Map();
    const byDomain = new Map<string, string[]>();
    for (const address of recipients) byDomain.set(domainOf(address), [...(byDomain.get(domainOf(address)) ?? []), address]);

    const groups = new Map<string, { route: Extract<MailRoute, { kind: 'hosts' }>; recipients: string[] }>();
    await Promise.all(
      [...byDomain].map(async ([domain, addresses]) => {
        const route = await this.resolver.route(domain);
        if (route.kind === 'unroutable') {
          for (const address of addresses) outcomes.set(address.toLowerCase(), route.outcome);
          return;
        }
        const key = sendingOrderKey(route.hosts);
        const group = groups.get(key) ?? { route, recipients: [] };
        group.recipients.push(...addresses);
        groups.set(key, group);
      }),
    );

    await Promise.all(
      [...groups.values()].map(async (group) => {
        const result = await this.sendToHosts(inSendingOrder(group.route.hosts), envelopeFrom, group.recipients, raw);
        for (const [address, outcome] of result) outcomes.set(address, outcome);
      }),
    );
    return outcomes;
  }

  abort(): void {
    this.pool.abort();
  }

  close(): void {
    this.pool.close();
  }

  private async sendToHosts(hosts: Extract<MailRoute, { kind: 'hosts' }>['hosts'], from: string, to: string[], raw: Buffer): Promise<RecipientOutcomes> {
    const outcomes: RecipientOutcomes = new Map();
    let untaken = to;
    let hostsPuttingOff = 0;
    // Past one message's exchange time the walk starts no session beyond the second: each host may stall for
    // SMTP_TIMEOUT_MS before it counts as unreachable, and a domain listing dozens of hosts that take the connection
    // and never greet (anyone may write a recipient domain's DNS) held a delivery slot for all of them, half an hour
    // with fifty. The second is always asked, so a preferred host that stalled a whole exchange still hands the mail
    // to its backup at once. What is left waits for the retry schedule, which starts again at the preferred host.
    const walkEnds = performance.now() + this.settings.messageTimeoutMs;
    let sessions = 0;
    for (const host of hosts) {
      for (const address of host.addresses) {
        let last = await sendInTransactions(this.poolFor(host.name, address, 'starttls'), { from, to: untaken }, raw, this.pool.limits);
        // Opportunistic TLS whose handshake failed (a host offering only old protocol versions, say): no byte
        // of the message went out, so the same host is asked again at once without TLS, as Postfix does at
        // its "may" level. Its certificate is not checked either way, so this costs no protection that TLS
        // gave here, while retrying with TLS would fail the same way until the mail failed for good.
        if (every(last, (outcome) => outcome.tlsFailed)) last = await sendInTransactions(this.poolFor(host.name, address, 'plaintext'), { from, to: untaken }, raw, this.pool.limits);
        for (const [recipient, outcome] of last) if (!keepsEarlierReply(outcomes.get(recipient), outcome)) outcomes.set(recipient, outcome);
        const putOff = [...last.values()].some((outcome) => outcome.hostDeferred);
        if (putOff) hostsPuttingOff += 1;
        // Only the recipients the host did not take (it could not be reached, refused the session, ended it before
        // the message, or answered 4xx in the transaction) go on to the next one, and only while the process is not
        // shutting down: what the host answered for the others (a 2xx, a 5xx at RCPT TO or to the message) is their
        // outcome. Those it accepted are never sent again, so no recipient gets a second copy.
        untaken = untaken.filter((recipient) => goesOnToTheNextHost(outcomes.get(recipient.toLowerCase())));
        if (!untaken.length || this.pool.limits.shutdown.aborted || hostsPuttingOff >= HOSTS_PUTTING_OFF_LIMIT) return outcomes;
        if (++sessions >= 2 && performance.now() >= walkEnds) return outcomes;
        if (putOff) break;
      }
    }
    return outcomes.size ? outcomes : new Map(to.map((address) => [address.toLowerCase(), { kind: 'temporary', code: null, reply: 'no mail host could be reached' } as SmtpOutcome]));
  }

  /** The pooled sessions to one address of an MX host: with opportunistic STARTTLS, or in plaintext after its TLS failed. */
  private poolFor(hostName: string, address: string, tls: 'starttls' | 'plaintext') {
    return this.pool.get(`${hostName}|${address}:${this.settings.port}|${tls}`, () => ({
      host: address,
      port: this.settings.port,
      secure: false,
      opportunisticTLS: tls === 'starttls',
      ignoreTLS: tls === 'plaintext',
      tls: { rejectUnauthorized: false, servername: hostName },
      name: this.settings.heloName,
      connectionTimeout: this.settings.timeoutMs,
      greetingTimeout: this.settings.timeoutMs,
      socketTimeout: this.settings.timeoutMs,
      maxConnections: this.settings.maxConnections,
      maxMessages: Infinity,
      maxRequeues: 1,
    }));
  }
}
