import { RecipientOutcomes } from './smtp-send';

export interface DeliveryOptions {
  /**
   * The message is a TLS report (RFC 8460): it goes despite any TLS failure (no MTA-STS policy holds it back, and a
   * failed handshake falls back to plaintext), and its sessions are not counted in the next report (§3), so that a
   * domain whose TLS is broken still hears of it.
   */
  tlsReport?: boolean;
}

/** How a message leaves Mailroom: straight to the recipients' MX hosts, or through a relay. */
export interface DeliveryTransport {
  /** What a 2xx means for a recipient: the MX accepted it ('delivered'), or the relay took it on ('sent'). */
  readonly acceptedStatus: 'delivered' | 'sent';
  /** `recipients` go into RCPT TO as given (a local part's case is kept); the outcomes are keyed by each one lower-cased. */
  deliver(envelopeFrom: string, recipients: string[], raw: Buffer, options?: DeliveryOptions): Promise<RecipientOutcomes>;
  /** Cuts off every exchange in flight (at shutdown, once the drain has waited long enough): each ends as a timeout. */
  abort(): void;
  close(): void;
}

export const DELIVERY_TRANSPORT = Symbol('DeliveryTransport');
