import type { DkimRotation, DnsRecord, DomainDkimRotatedEventData, DomainEventData, DomainListItem, DomainResponse, DomainVerifyResponse } from '@mailroom/contracts';
import type { DkimKeyEntity } from '../database/entities/dkim-key.entity';
import { DomainEntity } from '../database/entities/domain.entity';
import { trackingOf } from '../tracking-domain/tracking-domain';
import type { TrackingDomainCheck } from '../verification/domain-verifier';
import type { DomainCheck } from '../verification/verification-rules';
import { dkimRecord, expectedRecords, RecordSettings } from './dns-records';

export function toListItem(entity: DomainEntity): DomainListItem {
  return {
    id: entity.id,
    object: 'domain',
    name: entity.name,
    status: entity.status,
    region: entity.region,
    spfStatus: entity.spfStatus,
    dkimStatus: entity.dkimStatus,
    dmarcStatus: entity.dmarcStatus,
    createdAt: entity.createdAt.toISOString(),
  };
}

const verifiedAt = (entity: DomainEntity) => (entity.verifiedAt && entity.status === 'verified' ? { verifiedAt: entity.verifiedAt.toISOString() } : {});

const STATUS_OF: Record<DnsRecord['purpose'], 'spfStatus' | 'dkimStatus' | 'dmarcStatus'> = { spf: 'spfStatus', dkim: 'dkimStatus', dmarc: 'dmarcStatus' };

/** The rotation waiting for its CNAME; a pending key is promoted by the check that finds it, so its record is never verified here. */
export function toDkimRotation(domainId: string, pending: Pick<DkimKeyEntity, 'selector' | 'createdAt'> | null, dkimZone: string): DkimRotation | null {
  if (!pending) return null;
  const record = Object.assign(dkimRecord({ id: domainId, dkimSelector: pending.selector }, dkimZone), { verified: false });
  return { status: 'pending', selector: pending.selector, record, startedAt: pending.createdAt.toISOString() };
}

/**
 * The full object. `withFlags`: the retrieve response marks each record verified or not; create does not.
 * `defaultTrackingHost`: the host of TRACKING_BASE_URL, shown while no custom tracking domain is set.
 * `pending`: the domain's pending DKIM key, if a rotation waits for its CNAME.
 */
export function toResponse(
  entity: DomainEntity,
  pending: Pick<DkimKeyEntity, 'selector' | 'createdAt'> | null,
  settings: RecordSettings,
  defaultTrackingHost: string,
  withFlags = true,
): DomainResponse {
  const records = expectedRecords(entity, settings).map((record) =>
    withFlags ? Object.assign({}, record, { verified: entity[STATUS_OF[record.purpose]] === 'verified' }) : record,
  );
  return Object.assign(
    toListItem(entity),
    { dnsRecords: records, dkimRotation: toDkimRotation(entity.id, pending, settings.dkimZone), openTracking: entity.openTracking, clickTracking: entity.clickTracking },
    trackingOf(entity, defaultTrackingHost),
    verifiedAt(entity),
  );
}

/** What the verify answer says about a custom tracking domain's lookup, when it was about the domain's current tracking domain. */
function trackingCheckOf(entity: DomainEntity, tracking: TrackingDomainCheck | null | undefined, expectedHost: string) {
  if (!tracking || tracking.name !== entity.trackingDomain) return {};
  const { outcome } = tracking;
  if (outcome.result === 'error') return { trackingDomainDnsError: outcome.error };
  if (outcome.result === 'fail') return { trackingDomainProblem: outcome.problem ?? `no CNAME at ${tracking.name}; publish ${tracking.name} CNAME ${expectedHost}` };
  return {};
}

export function toVerifyResponse(
  entity: DomainEntity,
  check: DomainCheck,
  settings: RecordSettings,
  domainName: string,
  defaultTrackingHost: string,
  tracking?: TrackingDomainCheck | null,
): DomainVerifyResponse {
  const records = expectedRecords(entity, settings);
  const hostOf = (record: DnsRecord) => (record.host === '@' ? domainName : `${record.host}.${domainName}`);
  // Only records found missing whose sub-status the answer shows `pending`, as the interface has every missing record:
  // a verified domain's records being confirmed missing (it stays verified meanwhile, see nextState), and a pending
  // one's. A check that met a DNS failure, or that another check overtook, changed no sub-status, so a record it found
  // missing may still show `verified`; listing it beside that contradicted the answer, and the state stands.
  const listed = records.filter((record) => check[record.purpose].result === 'fail' && entity[STATUS_OF[record.purpose]] !== 'verified');
  const problems = records.flatMap((record) => {
    const outcome = check[record.purpose];
    return outcome.result === 'fail' && outcome.problem ? [{ purpose: record.purpose, host: hostOf(record), problem: outcome.problem }] : [];
  });
  const dnsErrors = records.flatMap((record) => {
    const outcome = check[record.purpose];
    return outcome.result === 'error' ? [{ purpose: record.purpose, host: outcome.host ?? hostOf(record), error: outcome.error }] : [];
  });
  return {
    ...toListItem(entity),
    ...verifiedAt(entity),
    ...(listed.length ? { missingRecords: listed } : {}),
    ...(problems.length ? { recordProblems: problems } : {}),
    ...(dnsErrors.length ? { dnsErrors } : {}),
    ...trackingOf(entity, defaultTrackingHost),
    ...trackingCheckOf(entity, tracking, defaultTrackingHost),
  };
}

export function toEventData(entity: DomainEntity, settings: RecordSettings, check: DomainCheck): DomainEventData {
  const missing = expectedRecords(entity, settings).filter((record) => check[record.purpose].result === 'fail');
  return {
    id: entity.id,
    name: entity.name,
    status: entity.status,
    spfStatus: entity.spfStatus,
    dkimStatus: entity.dkimStatus,
    dmarcStatus: entity.dmarcStatus,
    ...verifiedAt(entity),
    ...(missing.length ? { missingRecords: missing } : {}),
  };
}

export function toDkimRotatedEventData(entity: DomainEntity, promoted: { previousSelector: string; retireAfter: Date }): DomainDkimRotatedEventData {
  return {
    id: entity.id,
    name: entity.name,
    status: entity.status,
    selector: entity.dkimSelector,
    previousSelector: promoted.previousSelector,
    previousKeyRetiresAt: promoted.retireAfter.toISOString(),
  };
}
