import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { SecretBox } from '@mailroom/auth';
import type { ResealOutcome } from '@mailroom/database';
import { secretsSealedWithPreviousKey } from './metrics';
import { repeatEvery, RepeatingTask } from './repeating-task';

/**
 * How often a replica looks again while ENCRYPTION_KEY_PREVIOUS is set: during a rolling change a replica not yet
 * rolled still seals with the old key, after this replica's pass at boot.
 */
export const RESEAL_EVERY_MS = 10 * 60 * 1000;

/** What a SecretResealer keeps sealed under the current key, and how. */
export interface ResealedSecrets {
  /** The label of mailroom_secrets_sealed_with_previous_key. */
  kind: 'dkim_key' | 'webhook_secret';
  /** For the log: "DKIM private keys". */
  what: string;
  box: SecretBox;
  /** One pass over the stored secrets (the service's repository: see resealInBatches); `stopped` ends it between batches. */
  reseal(stopped: () => boolean): Promise<ResealOutcome>;
}

/**
 * A provider that keeps one kind of a service's stored secrets sealed under the current ENCRYPTION_KEY: while
 * ENCRYPTION_KEY_PREVIOUS is set, a pass at boot and then every RESEAL_EVERY_MS. What is left under a previous
 * key after each pass is the gauge mailroom_secrets_sealed_with_previous_key{kind}, and a log line says when none
 * is left, so the operator knows when this service no longer needs ENCRYPTION_KEY_PREVIOUS. Replicas may pass at
 * the same time: the compare-and-set lets one write win, and the other counts it remaining until its next pass.
 */
export class SecretResealer implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger = new Logger(this.constructor.name);
  private stopped = false;
  private loop?: RepeatingTask;
  /** What the last pass left under a previous key; undefined before the first. */
  private lastRemaining?: number;

  constructor(private readonly secrets: ResealedSecrets) {}

  onApplicationBootstrap(): void {
    const labels = { kind: this.secrets.kind };
    // Without previous keys there is nothing this service could open to seal again.
    if (this.secrets.box.previousKeyIds.length === 0) return secretsSealedWithPreviousKey.set(labels, 0);
    // Unknown until the first pass ends: no sample, rather than a 0 (or an earlier boot's value) that says done.
    secretsSealedWithPreviousKey.remove(labels);
    this.loop = repeatEvery(RESEAL_EVERY_MS, () => this.run(), 0);
  }

  async onApplicationShutdown(): Promise<void> {
    // Also read between the batches of a pass, so a shutdown does not wait for the rest of it.
    this.stopped = true;
    await this.loop?.stop();
  }

  private async run(): Promise<void> {
    try {
      const outcome = await this.secrets.reseal(() => this.stopped);
      if (this.stopped) return;
      secretsSealedWithPreviousKey.set({ kind: this.secrets.kind }, outcome.remaining);
      this.report(outcome);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, `sealing ${this.secrets.what} again under ENCRYPTION_KEY failed; the next pass retries`);
    }
  }

  private report({ resealed, remaining, unreadable }: ResealOutcome): void {
    const { what, box } = this.secrets;
    const keyId = box.keyId;
    if (resealed || remaining) this.logger.log({ resealed, remaining }, `sealed ${resealed} ${what} again under ENCRYPTION_KEY id ${keyId}; ${remaining} still under a previous key`);
    if (remaining === 0 && this.lastRemaining !== 0) {
      this.logger.log(`all ${what} are sealed under ENCRYPTION_KEY id ${keyId}: this service no longer needs ENCRYPTION_KEY_PREVIOUS for them`);
    }
    if (unreadable) {
      this.logger.warn({ unreadable }, `${unreadable} ${what} open with no key this service holds (ENCRYPTION_KEY nor ENCRYPTION_KEY_PREVIOUS): they are lost, issue new ones`);
    }
    this.lastRemaining = remaining;
  }
}
