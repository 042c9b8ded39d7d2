import { Inject, Injectable, Logger } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { previousKeyIdsNote, SecretBox, secretBoxFromConfig } from '@mailroom/auth';
import { MAILROOM_CONFIG, NatsSettings } from '@mailroom/runtime';
import type { DisablePolicy } from './dispatch/status-transitions';
import type { UrlPolicy } from './ssrf/url-policy';

/** The configuration the dispatcher reads, in the shapes its pure functions take. */
@Injectable()
export class WebhookSettings {
  readonly urlPolicy: UrlPolicy;
  readonly retrySchedule: readonly number[];
  readonly disablePolicy: DisablePolicy;
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly concurrencyPerEndpoint: number;
  readonly maxResponseBytes: number;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly deliveryRetentionMs: number;
  readonly nats: NatsSettings;
  readonly eventStreamReplicas: number;
  /** EVENT_BUFFER_BYTES: the event consumer's byte budget. */
  readonly eventBufferBytes: number;
  /** EVENT_ACK_WAIT_MS: how late a crashed replica's events go to another. */
  readonly eventAckWaitMs: number;
  /** WEBHOOK_DELIVERY_BUFFER_BYTES: the delivery pool's byte budget. */
  readonly deliveryBufferBytes: number;
  readonly secretBox: SecretBox;
  /** How webhook hosts are resolved (see webhookLookup). */
  readonly dns: { dnsServers: string[]; dnsTimeoutMs: number };

  constructor(@Inject(MAILROOM_CONFIG) config: MailroomConfig) {
    this.urlPolicy = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS };
    this.retrySchedule = config.WEBHOOK_RETRY_SCHEDULE;
    this.disablePolicy = { disableAfterMs: config.WEBHOOK_DISABLE_AFTER, disableAfterFailedDeliveries: config.WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES };
    this.timeoutMs = config.WEBHOOK_TIMEOUT_MS;
    this.concurrency = config.WEBHOOK_CONCURRENCY;
    this.concurrencyPerEndpoint = config.WEBHOOK_CONCURRENCY_PER_ENDPOINT;
    this.maxResponseBytes = config.WEBHOOK_MAX_RESPONSE_BYTES;
    this.leaseMs = config.WEBHOOK_LEASE_MS;
    this.pollMs = config.WEBHOOK_POLL_MS;
    this.deliveryRetentionMs = config.WEBHOOK_DELIVERY_RETENTION;
    this.nats = config;
    this.eventStreamReplicas = config.EVENT_STREAM_REPLICAS;
    this.eventBufferBytes = config.EVENT_BUFFER_BYTES;
    this.eventAckWaitMs = config.EVENT_ACK_WAIT_MS;
    this.deliveryBufferBytes = config.WEBHOOK_DELIVERY_BUFFER_BYTES;
    this.dns = { dnsServers: config.DNS_SERVERS, dnsTimeoutMs: config.DNS_TIMEOUT_MS };
    const logger = new Logger(WebhookSettings.name);
    this.secretBox = secretBoxFromConfig(config, (message) => logger.warn(message));
    // Replicas that show different ids cannot read one another's secrets.
    logger.log(`ENCRYPTION_KEY id ${this.secretBox.keyId} seals the webhook signing secrets${previousKeyIdsNote(this.secretBox)}`);
  }
}
