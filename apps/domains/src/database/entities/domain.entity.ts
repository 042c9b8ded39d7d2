import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { DomainRecordStatus, DomainRegion, DomainStatus, TrackingDomainStatus } from '@mailroom/contracts';

@Entity({ name: 'domains' })
export class DomainEntity {
  /** dom_<ULID>: time-sortable, so "newest first" is ORDER BY id DESC. */
  @PrimaryColumn('text')
  id: string;

  /** Lower-case, punycode; unique across live and test mode (domains are shared). */
  @Column('text')
  name: string;

  @Column('text')
  region: DomainRegion;

  @Column('text')
  status: DomainStatus;

  @Column('text', { name: 'spf_status' })
  spfStatus: DomainRecordStatus;

  @Column('text', { name: 'dkim_status' })
  dkimStatus: DomainRecordStatus;

  @Column('text', { name: 'dmarc_status' })
  dmarcStatus: DomainRecordStatus;

  @Column('text', { name: 'dkim_selector' })
  dkimSelector: string;

  /** Base64 DER SubjectPublicKeyInfo: the p= of the published DKIM record. */
  @Column('text', { name: 'dkim_public_key' })
  dkimPublicKey: string;

  /** PKCS#8 PEM sealed with SecretBox (AES-256-GCM, the row id as associated data). Never logged, never returned by the API. */
  @Column('text', { name: 'dkim_private_key_sealed' })
  dkimPrivateKeySealed: string;

  @Column('boolean', { name: 'open_tracking' })
  openTracking: boolean;

  @Column('boolean', { name: 'click_tracking' })
  clickTracking: boolean;

  /** A custom tracking host (lower-case punycode); null: the host of TRACKING_BASE_URL. */
  @Column('text', { name: 'tracking_domain', nullable: true })
  trackingDomain: string | null;

  /** Set with trackingDomain: pending until its CNAME to the tracking host verifies. Separate from `status`. */
  @Column('text', { name: 'tracking_domain_status', nullable: true })
  trackingDomainStatus: TrackingDomainStatus | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'verified_at', nullable: true })
  verifiedAt: Date | null;

  @Column('timestamptz', { name: 'failed_at', nullable: true })
  failedAt: Date | null;

  @Column('timestamptz', { name: 'pending_since' })
  pendingSince: Date;

  @Column('integer', { name: 'check_attempts' })
  checkAttempts: number;

  /**
   * When the checks of a verified domain first found a record missing (the asking time of that check); the domain
   * stays verified until DOMAIN_FAILURE_CONFIRMATION later. Null while nothing is missing.
   */
  @Column('timestamptz', { name: 'records_missing_since', nullable: true })
  recordsMissingSince: Date | null;

  /** When the background checker next looks at the domain; null when it no longer does (a failed domain, mostly). */
  @Column('timestamptz', { name: 'next_check_at', nullable: true })
  nextCheckAt: Date | null;

  @Column('timestamptz', { name: 'last_checked_at', nullable: true })
  lastCheckedAt: Date | null;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
