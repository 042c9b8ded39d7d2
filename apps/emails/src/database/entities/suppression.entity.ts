import { Column, Entity, PrimaryColumn } from 'typeorm';

export type SuppressionReason = 'bounce' | 'complaint' | 'manual' | 'unsubscribe';

/** An address never sent to in its mode (live and test lists are separate). */
@Entity({ name: 'suppressions' })
export class SuppressionEntity {
  @PrimaryColumn('text')
  mode: 'live' | 'test';

  /** Lower-case bare address. */
  @PrimaryColumn('text')
  address: string;

  @Column('text')
  reason: SuppressionReason;

  /** For a bounce, the SMTP reply. */
  @Column('text', { nullable: true })
  details: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}
