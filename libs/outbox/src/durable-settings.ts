import type { ConsumerInfo, ConsumerUpdateConfig, JetStreamManager } from 'nats';

/** The settings of a durable consumer this version keeps current: the ones JetStream lets a durable change after it is made. */
export type DurableSettings = Pick<ConsumerUpdateConfig, 'ack_wait' | 'max_ack_pending'>;

/**
 * Gives a durable that another replica, an earlier version or another
 * configuration made this configuration's settings, where they differ. Its
 * delivery state (what was acked) is kept.
 */
export async function keepDurableSettings(manager: JetStreamManager, durable: ConsumerInfo, wanted: DurableSettings): Promise<void> {
  const differs = (Object.keys(wanted) as Array<keyof DurableSettings>).some((name) => durable.config[name] !== wanted[name]);
  if (differs) await manager.consumers.update(durable.stream_name, durable.name, wanted);
}
