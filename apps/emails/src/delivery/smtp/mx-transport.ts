import { Logger } from '@nestjs/common';
import { stsPolicyRefusals } from '../mta-sts/mta-sts-metrics';
import { StsPolicySource } from '../mta-sts/sts-policies';
import { mxMatchesPolicy } from '../mta-sts/sts-policy';
import { inSendingOrder, sendingOrderKey } from '../mx/mx-order';
import { MailHost, MailRouter } from '../mx/mx-resolver';
import { SmtpOutcome } from '../smtp-outcome';
import { NO_POLICY, ReportedPolicy, reportedPolicy, sessionResult, TlsSessionRecorder } from '../tls-rpt/tls-session';
import { DeliveryOptions, DeliveryTransport } from './delivery-transport';
import { sendInTransactions } from './send-in-transactions';
import { negotiatedTls } from './negotiated-tls';
import { RecipientOutcomes } from './smtp-send';
import { TransporterPool } from './transporter-pool';

export interface MxSettings {
  port: number;
  heloName: string;
  timeoutMs: number;
  /** The whole exchange of one message (see sendRaw). */
  messageTimeoutMs: number;
  maxConnections: number;
  /** The certificate authorities an MX host's certificate must chain to where an MTA-STS policy is enforced. */
  trustedCas: string[];
}

/** How a session to an MX host uses TLS: opportunistic STARTTLS, plaintext after it failed, or STARTTLS required with a checked certificate (an enforced MTA-STS policy). */
type TlsLevel = 'starttls' | 'plaintext' | 'verified';

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

/** The recipients of one or more domains that go in one message: to the same hosts, under the same TLS level. */
interface DeliveryGroup {
  hosts: MailHost[];
  enforced: boolean;
  /** Whether its sessions count in TLS reports: not those carrying a report (see DeliveryOptions). */
  counted: boolean;
  recipients: string[];
  /** Each recipient domain's policy, as its TLS report names it. */
  policies: Map<string, ReportedPolicy>;
}

/**
 * The outcome of recipients none of whose domain's MX hosts an enforced policy lists: temporary, as RFC 8461 §5 has
 * it, since the domain's MX records or policy may be mended before the retries run out.
 */
function noMatchingMx(domain: string, patterns: string[], recipients: number): SmtpOutcome {
  stsPolicyRefusals.labels('no_matching_mx').inc(recipients);
  return { kind: 'temporary', code: null, reply: `MTA-STS: no MX host of ${domain} matches its policy (mx: ${patterns.join(', ')})` };
}

/** The outcome of a host that failed the TLS an enforced policy requires, saying so; any other outcome as it is. */
function underEnforcedPolicy(outcome: SmtpOutcome, host: string): SmtpOutcome {
  if (!outcome.tlsFailed && !outcome.startTlsRefused) return outcome;
  return Object.assign({}, outcome, { reply: `MTA-STS: the recipient domain's policy requires TLS with a valid certificate for ${host}, which failed (${outcome.reply})` });
}

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
 * certificates are not checked, as between MTAs on the public internet,
 * except for a domain whose MTA-STS policy (RFC 8461) is enforced: its mail
 * goes only to the MX hosts the policy lists, over STARTTLS with a
 * certificate valid for the host, or waits for a retry.
 */
export class MxTransport implements DeliveryTransport {
  readonly acceptedStatus = 'delivered' as const;
  private readonly pool: TransporterPool;
  private readonly logger = new Logger(MxTransport.name);

  /** policies: MTA_STS=enforce; undefined when off. tlsReports: TLSRPT=on; undefined when off. */
  constructor(
    private readonly resolver: MailRouter,
    private readonly settings: MxSettings,
    private readonly policies?: StsPolicySource,
    private readonly tlsReports?: TlsSessionRecorder,
  ) {
    this.pool = new TransporterPool(settings.messageTimeoutMs);
  }

  async deliver(envelopeFrom: string, recipients: string[], raw: Buffer, options: DeliveryOptions = {}): Promise<RecipientOutcomes> {
    const outcomes: RecipientOutcomes = new Map();
    const byDomain = new Map<string, string[]>();
    for (const address of recipients) byDomain.set(domainOf(address), [...(byDomain.get(domainOf(address)) ?? []), address]);

    const groups = new Map<string, DeliveryGroup>();
    await Promise.all(
      [...byDomain].map(async ([domain, addresses]) => {
        const [route, policy] = await Promise.all([this.resolver.route(domain), options.tlsReport ? ({ kind: 'none', reported: NO_POLICY } as const) : this.policyOf(domain)]);
        const refuse = (outcome: SmtpOutcome) => addresses.forEach((address) => outcomes.set(address.toLowerCase(), outcome));
        if (route.kind === 'unroutable') return refuse(route.outcome);
        if (policy.kind === 'unknown') return refuse(policy.outcome);
        const patterns = policy.kind === 'enforce' ? policy.mx : null;
        const hosts = patterns ? route.hosts.filter((host) => mxMatchesPolicy(host.name, patterns)) : route.hosts;
        if (patterns && !hosts.length) {
          // No session is attempted; each MX host the policy does not list counts as a failed one (RFC 8460 §4.3.1's
          // validation-failure: the host failed the policy's validation), so the domain hears its MX and policy disagree.
          for (const host of route.hosts) this.tlsReports?.record(domain, policy.reported, { ok: false, resultType: 'validation-failure', mxHostname: host.name, ip: '' });
          return refuse(noMatchingMx(domain, patterns, addresses.length));
        }
        const enforced = patterns !== null;
        // An enforced delivery and an opportunistic one never share a message, so never a connection either.
        const key = `${enforced ? 'verified ' : ''}${sendingOrderKey(hosts)}`;
        const group = groups.get(key) ?? { hosts, enforced, counted: !options.tlsReport, recipients: [], policies: new Map<string, ReportedPolicy>() };
        group.recipients.push(...addresses);
        group.policies.set(domain, policy.reported);
        groups.set(key, group);
      }),
    );

    await Promise.all(
      [...groups.values()].map(async (group) => {
        const result = await this.sendToHosts(inSendingOrder(group.hosts), envelopeFrom, group.recipients, raw, group);
        const tlsFailed = group.enforced ? [...result.values()].filter((outcome) => outcome.tlsFailed || outcome.startTlsRefused).length : 0;
        if (tlsFailed) stsPolicyRefusals.labels('tls_failed').inc(tlsFailed);
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

  /**
   * The policy a domain's mail is sent under: an enforced one's MX patterns, or none to enforce (MTA_STS=off, no
   * policy, or one in testing or none mode, which only logs). A policy that cannot be read (the database is away) is
   * not taken for none, which would downgrade a cached enforce policy: the mail waits for a retry.
   */
  private async policyOf(
    domain: string,
  ): Promise<{ kind: 'enforce'; mx: string[]; reported: ReportedPolicy } | { kind: 'none'; reported: ReportedPolicy } | { kind: 'unknown'; outcome: SmtpOutcome }> {
    if (!this.policies) return { kind: 'none', reported: NO_POLICY };
    try {
      const policy = await this.policies.policyFor(domain);
      if (policy?.mode === 'enforce') return { kind: 'enforce', mx: policy.mx, reported: reportedPolicy(policy) };
      if (policy) this.logger.debug(`MTA-STS policy of ${domain} is in ${policy.mode} mode: delivering as without one`);
      return { kind: 'none', reported: reportedPolicy(policy) };
    } catch (error) {
      return { kind: 'unknown', outcome: { kind: 'temporary', code: null, reply: `4.4.3 MTA-STS policy of ${domain} could not be read (${(error as Error).message})` } };
    }
  }

  private async sendToHosts(hosts: MailHost[], from: string, to: string[], raw: Buffer, group: DeliveryGroup): Promise<RecipientOutcomes> {
    const { enforced } = group;
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
        const tlsPool = this.poolFor(host.name, address, enforced ? 'verified' : 'starttls');
        let last = await sendInTransactions(tlsPool, host.name, { from, to: untaken }, raw, this.pool.limits);
        // Counted once per session with TLS tried: a plaintext retry below is that same attempt going on.
        if (group.counted) this.recordSessions(group.policies, last, { mxHostname: host.name, ip: address, tlsNegotiated: enforced || negotiatedTls(tlsPool) });
        // Opportunistic TLS whose handshake failed (a host offering only old protocol versions, say): no byte
        // of the message went out, so the same host is asked again at once without TLS, as Postfix does at
        // its "may" level. Its certificate is not checked either way, so this costs no protection that TLS
        // gave here, while retrying with TLS would fail the same way until the mail failed for good.
        // Never under an enforced MTA-STS policy: its TLS is what keeps an attacker from stripping STARTTLS.
        if (enforced) last = new Map([...last].map(([recipient, outcome]) => [recipient, underEnforcedPolicy(outcome, host.name)]));
        else if (every(last, (outcome) => outcome.tlsFailed)) last = await sendInTransactions(this.poolFor(host.name, address, 'plaintext'), host.name, { from, to: untaken }, raw, this.pool.limits);
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

  /** Tells the TLS report counts what the session to one MX address was for each recipient domain it carried. */
  private recordSessions(policies: Map<string, ReportedPolicy>, outcomes: RecipientOutcomes, session: { mxHostname: string; ip: string; tlsNegotiated: boolean }): void {
    if (!this.tlsReports) return;
    const byDomain = new Map<string, SmtpOutcome[]>();
    for (const [recipient, outcome] of outcomes) {
      const domain = domainOf(recipient);
      const ofDomain = byDomain.get(domain);
      if (ofDomain) ofDomain.push(outcome);
      else byDomain.set(domain, [outcome]);
    }
    for (const [domain, domainOutcomes] of byDomain) {
      const policy = policies.get(domain) ?? NO_POLICY;
      const result = sessionResult(domainOutcomes, Object.assign({ underPolicy: policy.type === 'sts' }, session));
      if (result) this.tlsReports.record(domain, policy, result);
    }
  }

  /**
   * The pooled sessions to one address of an MX host: with opportunistic STARTTLS, in plaintext after its TLS failed,
   * or with STARTTLS required and the certificate checked for the host's name (RFC 8461 §4.2), with no fallback.
   */
  private poolFor(hostName: string, address: string, tls: TlsLevel) {
    const verified = tls === 'verified';
    return this.pool.get(`${hostName}|${address}:${this.settings.port}|${tls}`, () => ({
      host: address,
      port: this.settings.port,
      secure: false,
      requireTLS: verified,
      opportunisticTLS: tls === 'starttls',
      ignoreTLS: tls === 'plaintext',
      tls: verified ? { rejectUnauthorized: true, servername: hostName, ca: this.settings.trustedCas } : { rejectUnauthorized: false, servername: hostName },
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
