import type { DeletedResponse } from '../common/list';
import type {
  DkimZoneExportPayload,
  DkimZoneExportReply,
  DomainByIdPayload,
  DomainCreatePayload,
  DomainList,
  DomainListPayload,
  DomainResponse,
  DomainUpdatePayload,
  DomainVerifyResponse,
} from './domain.types';
import { SENDER_IDENTITY_SUBJECT, SenderIdentityPayload, SenderIdentityReply } from './sender-identity';

/** Request-reply subjects of the domains service. Renaming one is a migration: old replicas stop answering. */
export const DomainsSubjects = {
  create: 'domains.domain.create',
  list: 'domains.domain.list',
  get: 'domains.domain.get',
  update: 'domains.domain.update',
  verify: 'domains.domain.verify',
  rotateDkim: 'domains.domain.rotate-dkim',
  delete: 'domains.domain.delete',
  senderIdentity: SENDER_IDENTITY_SUBJECT,
  zoneExport: 'domains.dkim-zone.export',
} as const;

/** Durable events (through the outbox and JetStream), so webhooks can carry them. */
export const DomainEvents = {
  verified: 'domain.verified',
  failed: 'domain.failed',
  dkimRotated: 'domain.dkim_rotated',
} as const;

/** Fire-and-forget subjects. */
export const DomainBroadcasts = {
  /**
   * Broadcast without a queue group once a domain is deleted: every emails replica drops the identity (DKIM key)
   * it caches, so mail that was accepted as the deletion's in-use check ran fails instead of going out signed
   * with a key no longer published.
   */
  deleted: 'sending-domain.deleted',
} as const;

export interface DomainDeletedBroadcast {
  /** The deleted domain's name, as the emails service caches its identity under. */
  name: string;
}

export interface DomainsRpc {
  [DomainsSubjects.create]: { payload: DomainCreatePayload; reply: DomainResponse };
  [DomainsSubjects.list]: { payload: DomainListPayload; reply: DomainList };
  [DomainsSubjects.get]: { payload: DomainByIdPayload; reply: DomainResponse };
  [DomainsSubjects.update]: { payload: DomainUpdatePayload; reply: DomainResponse };
  [DomainsSubjects.verify]: { payload: DomainByIdPayload; reply: DomainVerifyResponse };
  [DomainsSubjects.rotateDkim]: { payload: DomainByIdPayload; reply: DomainResponse };
  [DomainsSubjects.delete]: { payload: DomainByIdPayload; reply: DeletedResponse<'domain'> };
  [DomainsSubjects.senderIdentity]: { payload: SenderIdentityPayload; reply: SenderIdentityReply };
  [DomainsSubjects.zoneExport]: { payload: DkimZoneExportPayload; reply: DkimZoneExportReply };
}
