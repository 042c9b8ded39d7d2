import { Injectable } from '@nestjs/common';
import { SecretResealer } from '@mailroom/runtime';
import { WebhookSettings } from '../webhook-settings';
import { WebhooksRepository } from './webhooks.repository';

/**
 * After ENCRYPTION_KEY changed, seals each webhook's signing secret again under it, the secret before the last
 * rotation too (it still signs until it expires), so ENCRYPTION_KEY_PREVIOUS can go (see SecretResealer).
 */
@Injectable()
export class WebhookSecretResealer extends SecretResealer {
  constructor(webhooks: WebhooksRepository, { secretBox }: WebhookSettings) {
    super({ kind: 'webhook_secret', what: 'webhook signing secrets', box: secretBox, reseal: (stopped) => webhooks.resealSecrets(secretBox, stopped) });
  }
}
