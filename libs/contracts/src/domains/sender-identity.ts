/**
 * What the emails service needs about a sending domain, asked of the domains
 * service over NATS (emails never reads the domains schema).
 */
export interface SenderIdentityPayload {
  /** The from domain, lower-case. */
  name: string;
}

/**
 * The domain's DKIM signing key as it crosses NATS. NATS has no authentication
 * by default, so anyone who reaches the bus can ask this subject or watch its
 * replies: the key travels sealed, never as PEM.
 */
export interface SenderIdentityDkim {
  /** The selector of the `<selector>._domainkey` record. */
  selector: string;
  /**
   * The PKCS#8 PEM sealed with SecretBox (AES-256-GCM) under ENCRYPTION_KEY, with the domainId as
   * associated data: the value the domains service stores at rest, passed on unopened. The emails
   * service, which shares ENCRYPTION_KEY (or has it in ENCRYPTION_KEY_PREVIOUS), opens it; nobody else on the bus can.
   */
  privateKeySealed?: string;
  /**
   * The SecretBox keyId of the domains service's key that opens privateKeySealed (its ENCRYPTION_KEY, or after a
   * rotation a key of ENCRYPTION_KEY_PREVIOUS until the value is sealed again), so a key that does not open can be
   * told a mismatch.
   */
  sealedWithKeyId?: string;
  /**
   * The PEM in plaintext, as domains replicas older than `privateKeySealed` sent it. Current replicas
   * never send it; the emails service still accepts it so a rolling upgrade (emails first) keeps signing.
   * @deprecated read only during a rolling upgrade; remove once no older domains replica runs.
   */
  privateKeyPem?: string;
}

export interface SenderIdentity {
  domainId: string;
  name: string;
  status: 'pending' | 'verified' | 'failed';
  dkim: SenderIdentityDkim;
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
