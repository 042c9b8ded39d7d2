import { Column, Entity, PrimaryColumn } from 'typeorm';

export type DkimKeyStatus = 'pending' | 'retiring' | 'retired';

/** A DKIM key of a domain other than its active one (see the migration CreateDkimKeys1763800000150). */
@Entity({ name: 'dkim_keys' })
export class DkimKeyEntity {
  /** dkey_<ULID>. */
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'domain_id' })
  domainId: string;

  @Column('text')
  selector: string;

  @Column('text')
  status: DkimKeyStatus;

  /** Base64 DER SubjectPublicKeyInfo; null once retired. */
  @Column('text', { name: 'public_key', nullable: true })
  publicKey: string | null;

  /** Sealed as DomainEntity.dkimPrivateKeySealed is, with the domain id as associated data; null once retired. */
  @Column('text', { name: 'private_key_sealed', nullable: true })
  privateKeySealed: string | null;

  /** Background checks of a pending key's CNAME so far: its place in DOMAIN_RECHECK_SCHEDULE. */
  @Column('integer', { name: 'check_attempts' })
  checkAttempts: number;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  /** A retiring key is published until then, and purged after. */
  @Column('timestamptz', { name: 'retire_after', nullable: true })
  retireAfter: Date | null;
}
