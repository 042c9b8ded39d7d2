import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SealedColumns, SecretResealer } from '@mailroom/runtime';
import { WebhookSettings } from '../webhook-settings';

/**
 * After ENCRYPTION_KEY changed, seals each webhook's signing secret again under it, the secret before the last
 * rotation too (it still signs until it expires), so ENCRYPTION_KEY_PREVIOUS can go (see SecretResealer).
 */
@Injectable()
export class WebhookSecretResealer extends SecretResealer {
  protected readonly sealed: SealedColumns = {
    kind: 'webhook_secret',
    what: 'webhook signing secrets',
    table: 'webhooks.webhooks',
    columns: ['secret_sealed', 'previous_secret_sealed'],
  };

  constructor(@InjectDataSource() dataSource: DataSource, settings: WebhookSettings) {
    super(dataSource, settings.secretBox);
  }
}
