import type { MailroomConfig } from '@mailroom/config';

/**
 * What one emails process does (EMAILS_ROLE). Requests are the NATS
 * request-reply subjects the gateway and the domains service call; background
 * work is everything that runs on its own: delivery, the outbox relay, the
 * event consumers, compaction and retention.
 */
export function answersRequests(config: MailroomConfig): boolean {
  return config.EMAILS_ROLE !== 'worker';
}

export function doesBackgroundWork(config: MailroomConfig): boolean {
  return config.EMAILS_ROLE !== 'api';
}

/** The given modules or providers when this process does background work, else none. */
export function backgroundOnly<T>(config: MailroomConfig, parts: T[]): T[] {
  return doesBackgroundWork(config) ? parts : [];
}
