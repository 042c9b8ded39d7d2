/**
 * What the emails service needs about a sending domain, asked of the domains
 * service over NATS (emails never reads the domains schema).
 */
export interface SenderIdentityPayload {
  /** The from domain, lower-case. */
  name: string;
}

export interface SenderIdentity {
  domainId: string;
  name: string;
  status: 'pending' | 'verified' | 'failed';
  dkim: {
    /** The selector of the `<selector>._domainkey` record. */
    selector: string;
    /** PEM, decrypted by the domains service for signing; never logged, never returned by the HTTP API. */
    privateKeyPem: string;
  };
  /** Host (and scheme) the tracking pixel and links use, e.g. https://track.example.com. */
  trackingBaseUrl: string;
  openTracking: boolean;
  clickTracking: boolean;
}

export interface SenderIdentityReply {
  identity: SenderIdentity | null;
}

/** Subjects are defined in ./subjects.ts; this is the one the emails service calls. */
export const SENDER_IDENTITY_SUBJECT = 'domains.domain.sender-identity' as const;
