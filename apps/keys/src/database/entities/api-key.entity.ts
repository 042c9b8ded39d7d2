import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  /** key_<ULID>: time-sortable, so "newest first" is ORDER BY id DESC. */
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  name: string;

  @Column('text')
  mode: 'live' | 'test';

  /** SHA-256 of the secret, hex. The secret itself is never stored. */
  @Column('text', { name: 'key_hash' })
  keyHash: string;

  @Column('text', { name: 'key_hint' })
  keyHint: string;

  @Column('text', { array: true })
  permissions: string[];

  @Column('text', { name: 'domain_restrictions', array: true })
  domainRestrictions: string[];

  @Column('text', { name: 'ip_restrictions', array: true })
  ipRestrictions: string[];

  @Column('timestamptz', { name: 'expires_at', nullable: true })
  expiresAt: Date | null;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  /** Soft delete keeps the row for audit; a deleted key never authenticates again. */
  @Column('timestamptz', { name: 'deleted_at', nullable: true })
  deletedAt: Date | null;
}
