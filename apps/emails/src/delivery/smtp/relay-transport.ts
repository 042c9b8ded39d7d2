import type { SMTPPoolOptions } from 'nodemailer/lib/smtp-pool';
import { DeliveryTransport } from './delivery-transport';
import { sendInTransactions } from './send-in-transactions';
import type { RecipientOutcomes } from './smtp-send';
import { TransporterPool } from './transporter-pool';

export interface RelaySettings {
  url: string;
  secure: boolean;
  requireTls: boolean;
  verifyTls: boolean;
  heloName: string;
  timeoutMs: number;
  /** The whole exchange of one message (see sendRaw). */
  messageTimeoutMs: number;
  maxConnections: number;
}

/** Connection options from SMTP_RELAY_URL (smtp:// → STARTTLS when offered, smtps:// → implicit TLS) and the TLS switches. */
export function relayOptions(settings: RelaySettings): SMTPPoolOptions {
  const url = new URL(settings.url);
  const secure = url.protocol === 'smtps:' || settings.secure;
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    requireTLS: settings.requireTls,
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    tls: { rejectUnauthorized: settings.verifyTls },
    name: settings.heloName,
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs,
    maxConnections: settings.maxConnections,
    maxMessages: Infinity,
    // A dropped connection is retried on Mailroom's schedule, not by the pool.
    maxRequeues: 1,
  };
}

/** Relay mode: every message goes to one smarthost, all recipients in one transaction; its 2xx means 'sent'. */
export class RelayTransport implements DeliveryTransport {
  readonly acceptedStatus = 'sent' as const;
  private readonly pool: TransporterPool;
  /** The relay's host name, which every outcome is of. */
  private readonly host: string;

  constructor(private readonly settings: RelaySettings) {
    this.pool = new TransporterPool(settings.messageTimeoutMs);
    this.host = relayOptions(settings).host as string;
  }

  async deliver(envelopeFrom: string, recipients: string[], raw: Buffer): Promise<RecipientOutcomes> {
    const smtpPool = this.pool.get('relay', () => relayOptions(this.settings));
    return sendInTransactions(smtpPool, this.host, { from: envelopeFrom, to: recipients }, raw, this.pool.limits);
  }

  abort(): void {
    this.pool.abort();
  }

  close(): void {
    this.pool.close();
  }
}
