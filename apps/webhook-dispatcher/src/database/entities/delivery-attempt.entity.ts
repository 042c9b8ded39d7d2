import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One HTTP attempt of a delivery: the log GET …/deliveries shows. */
@Entity({ name: 'delivery_attempts' })
export class DeliveryAttemptEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column('text', { name: 'delivery_id' })
  deliveryId: string;

  @Column('integer')
  attempt: number;

  @Column('timestamptz', { name: 'started_at' })
  startedAt: Date;

  @Column('integer', { name: 'response_code', nullable: true })
  responseCode: number | null;

  @Column('integer', { name: 'duration_ms' })
  durationMs: number;

  @Column('text', { nullable: true })
  error: string | null;
}
