/** Every event kind on the stream; webhooks subscribe to these or to `*`. Adding one is additive; renaming one is a migration. */
export const EMAIL_EVENT_TYPES = [
  'email.scheduled',
  'email.queued',
  'email.sent',
  'email.delivered',
  'email.delivery_delayed',
  'email.bounced',
  'email.failed',
  'email.opened',
  'email.clicked',
  'email.complained',
  'email.suppressed',
  'email.cancelled',
] as const;

export const DOMAIN_EVENT_TYPES = ['domain.verified', 'domain.failed', 'domain.dkim_rotated'] as const;

export const EVENT_TYPES = [...EMAIL_EVENT_TYPES, ...DOMAIN_EVENT_TYPES] as const;

/**
 * Events of a resource both modes share: a domain serves test and live keys
 * alike, so its events reach test webhooks as well as live ones, whatever
 * the event's `mode` says.
 */
export function reachesEveryMode(type: string): boolean {
  return (DOMAIN_EVENT_TYPES as readonly string[]).includes(type);
}

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/** The email summary every email.* event carries in `data`, plus fields of its kind. */
export interface EmailEventSummary {
  emailId: string;
  from: string;
  to: string[];
  subject: string;
  tags: string[];
}
