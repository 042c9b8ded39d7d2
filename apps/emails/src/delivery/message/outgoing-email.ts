import type { KeyObject } from 'node:crypto';
import type { StoredAttachment } from '../../database/entities/email.entity';

/** What the worker needs of an email row to build and address its message. */
export interface OutgoingEmail {
  id: string;
  mode: 'live' | 'test';
  fromAddress: string;
  fromEmail: string;
  fromDomain: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  attachments: StoredAttachment[];
  tags: string[];
  messageId: string;
  /**
   * The message's Date: when it was due (its scheduledAt, else when it was
   * accepted). Fixed per email, so a retry or a redelivery after a crash goes
   * out with the same Date as well as the same Message-ID.
   */
  originatedAt: Date;
}

/** The key the message is signed with: d= is the from domain, so DMARC aligns. */
export interface DkimSigningKey {
  domainName: string;
  keySelector: string;
  /** Parsed once per domain (parsed-private-key): a PEM string would be parsed again for every message. */
  privateKey: KeyObject;
}
