import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { IdempotencyInput } from '@mailroom/contracts';
import { IdempotencyKeys } from '@mailroom/database';
import { IdempotencyKeyWait, KEY_IN_USE } from '@mailroom/runtime';

/**
 * The advisory lock class of a webhook's Idempotency-Key being stored. Advisory locks are the whole database's, so
 * not the emails service's (IDEMPOTENCY_KEY_LOCK_CLASS, 0x6d72_696b) nor its sending domains' (0x6d72_6464).
 */
export const WEBHOOK_IDEMPOTENCY_KEY_LOCK_CLASS = 0x6d72_7769;

/**
 * POST /v1/webhooks' Idempotency-Keys (webhooks.idempotency_keys; see
 * IdempotencyKeys), by the sends' rules. A key's answer is the id of the
 * webhook it created, never the webhook itself: a replay reads the webhook
 * as it is now, with its current secret, which is never copied out of its
 * sealed column.
 */
@Injectable()
export class WebhookIdempotency {
  private readonly keys: IdempotencyKeys;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly keyWait: IdempotencyKeyWait,
  ) {
    this.keys = new IdempotencyKeys(dataSource, {
      table: 'webhooks.idempotency_keys',
      lockClass: WEBHOOK_IDEMPOTENCY_KEY_LOCK_CLASS,
      answerColumns: { webhook_id: 'text' },
    });
  }

  /** The id of the webhook the key created within its 24 hours, or null; 409 when the key came with another body. */
  async createdWebhookId(apiKeyId: string, idempotency: IdempotencyInput): Promise<string | null> {
    const row = await this.keys.replay(apiKeyId, idempotency);
    return row ? (row.webhook_id as string) : null;
  }

  /**
   * Inserts the webhook (`insert` answers its id) and stores the key with that id in one transaction: a webhook is
   * never committed without its key, nor a key without its webhook. A request that finds the key being stored by
   * another waits for it (IdempotencyKeyWait, from `since`, the request's start), and one that then finds it stored
   * inserts nothing. Answers the id the key stands for: this request's webhook, or the one of the request before it.
   */
  async createOnce(apiKeyId: string, idempotency: IdempotencyInput, since: Date, insert: (manager: EntityManager) => Promise<string>): Promise<string> {
    const created = await this.keyWait.untilFree(idempotency.key, since, () =>
      this.dataSource.transaction(async (manager) => {
        const claim = await this.keys.claim(manager, apiKeyId, idempotency);
        if (claim === 'in_use') return KEY_IN_USE;
        if (claim === 'answered') return null;
        const id = await insert(manager);
        await this.keys.complete(manager, apiKeyId, idempotency.key, { webhook_id: id });
        return id;
      }),
    );
    if (created) return created;
    // Lost the race for the key: the winner has committed (its lock is free), so its webhook's id (or a 409) is there now.
    const winner = await this.createdWebhookId(apiKeyId, idempotency);
    if (!winner) throw new Error('Idempotency key claimed but no stored webhook id found');
    return winner;
  }

  purgeExpired(): Promise<number> {
    return this.keys.purgeExpired();
  }
}
