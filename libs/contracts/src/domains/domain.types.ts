import type { ListEnvelope, ListParams } from '../common/list';
import type { RequestContext } from '../common/request-context';

export const DOMAIN_STATUSES = ['pending', 'verified', 'failed'] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];
export type DomainRecordStatus = 'pending' | 'verified';
export const DOMAIN_REGIONS = ['us', 'eu'] as const;
export type DomainRegion = (typeof DOMAIN_REGIONS)[number];
export type DnsRecordPurpose = 'spf' | 'dkim' | 'dmarc';

/** A record the domain owner publishes. `verified` appears in the retrieve response only. */
export interface DnsRecord {
  type: 'TXT' | 'CNAME';
  /** Relative to the domain: `@`, `<selector>._domainkey`, `_dmarc`. */
  host: string;
  value: string;
  purpose: DnsRecordPurpose;
  verified?: boolean;
}

export interface DomainListItem {
  id: string;
  object: 'domain';
  name: string;
  status: DomainStatus;
  region: DomainRegion;
  spfStatus: DomainRecordStatus;
  dkimStatus: DomainRecordStatus;
  dmarcStatus: DomainRecordStatus;
  createdAt: string;
}

/** `verified` for the default host (TRACKING_BASE_URL's); a custom tracking domain is `pending` until its CNAME verifies. */
export const TRACKING_DOMAIN_STATUSES = ['pending', 'verified', 'failed'] as const;
export type TrackingDomainStatus = (typeof TRACKING_DOMAIN_STATUSES)[number];

/** Where the pixel and rewritten links of the domain's mail point. */
export interface DomainTracking {
  /** The custom tracking domain when one is set, else the host of TRACKING_BASE_URL. */
  trackingDomain: string;
  trackingDomainStatus: TrackingDomainStatus;
}

/**
 * A DKIM key rotation waiting for its CNAME: the new key is published in DKIM_ZONE but signs nothing until a check
 * finds `record` in place; then it becomes the active key (dnsRecords shows its CNAME) and this goes back to null.
 */
export interface DkimRotation {
  status: 'pending';
  selector: string;
  /** The CNAME to publish, beside the active one (both stay until the old key is retired). `verified` is false while pending. */
  record: DnsRecord & { type: 'CNAME'; purpose: 'dkim'; verified: boolean };
  /** When the pending key was made (a rotation repeated while pending makes a new one). */
  startedAt: string;
}

export interface DomainResponse extends DomainListItem, DomainTracking {
  /** The three records of the active keys and settings: SPF, DKIM, DMARC. A pending rotation's CNAME is in dkimRotation. */
  dnsRecords: DnsRecord[];
  /** Null when no rotation is pending. */
  dkimRotation: DkimRotation | null;
  openTracking: boolean;
  clickTracking: boolean;
  /** Present once verified. */
  verifiedAt?: string;
}

/** A lookup that failed (timeout, SERVFAIL, refused): not a missing record, and no status changed because of it. */
export interface DnsLookupError {
  purpose: DnsRecordPurpose;
  /** The full name that was looked up, e.g. `_dmarc.example.com`. */
  host: string;
  error: string;
}

/** Why a found record does not count, e.g. two SPF records, or a CNAME to the wrong target. */
export interface DnsRecordProblem {
  purpose: DnsRecordPurpose;
  host: string;
  problem: string;
}

export interface DomainVerifyResponse extends DomainListItem {
  verifiedAt?: string;
  /**
   * The records the check found missing: still to publish on a pending or failed domain; on a verified one, records
   * gone that the background is confirming (it stays verified until DOMAIN_FAILURE_CONFIRMATION has passed).
   */
  missingRecords?: Omit<DnsRecord, 'verified'>[];
  recordProblems?: DnsRecordProblem[];
  dnsErrors?: DnsLookupError[];
  trackingDomain: string;
  trackingDomainStatus: TrackingDomainStatus;
  /** Why a custom tracking domain's CNAME does not count (missing, or pointing elsewhere). */
  trackingDomainProblem?: string;
  /** The custom tracking domain's lookup failed (timeout, SERVFAIL): its status did not change. */
  trackingDomainDnsError?: string;
}

export interface DomainCreateInput {
  name: string;
  region?: DomainRegion;
}

export interface DomainCreatePayload {
  ctx: RequestContext;
  input: DomainCreateInput;
}
/** Only the fields given change; see DomainUpdateDto. */
export interface DomainUpdateInput {
  openTracking?: boolean;
  clickTracking?: boolean;
  /** null: back to the host of TRACKING_BASE_URL. */
  trackingDomain?: string | null;
}

export interface DomainUpdatePayload {
  ctx: RequestContext;
  id: string;
  input: DomainUpdateInput;
}
export interface DomainByIdPayload {
  ctx: RequestContext;
  id: string;
}
export interface DomainListPayload {
  ctx: RequestContext;
  params: ListParams;
  status?: DomainStatus;
}

/** ctx absent (the CLI, internal callers): every domain's key. With a restricted key's ctx: only its domains' keys. */
export interface DkimZoneExportPayload {
  ctx?: RequestContext;
}

export interface DkimZoneExportReply {
  /** The DKIM zone as an RFC 1035 master file. */
  zoneFile: string;
}

export type DomainList = ListEnvelope<DomainListItem>;

/** The data of `domain.dkim_rotated`: a rotation's new key now signs; the old one is published until `previousKeyRetiresAt`. */
export interface DomainDkimRotatedEventData {
  id: string;
  name: string;
  status: DomainStatus;
  selector: string;
  previousSelector: string;
  previousKeyRetiresAt: string;
}

/** The data of `domain.verified` and `domain.failed` events. */
export interface DomainEventData {
  id: string;
  name: string;
  status: DomainStatus;
  spfStatus: DomainRecordStatus;
  dkimStatus: DomainRecordStatus;
  dmarcStatus: DomainRecordStatus;
  verifiedAt?: string;
  missingRecords?: Omit<DnsRecord, 'verified'>[];
}
