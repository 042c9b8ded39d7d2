import type { AnalyticsMetric, EventEnvelope } from '@mailroom/contracts';

/**
 * Each recipient an event reports suppressed when its email was accepted: an
 * email.suppressed whose whole email was (its `recipients`), or the
 * `suppressedRecipients` an email.queued or email.scheduled was accepted
 * without. Counting such an event once undercounted the first kind and missed
 * the second, where a recipient suppressed at delivery counted one each.
 */
function suppressedAtAcceptance(listed: unknown): AnalyticsMetric[] {
  return Array.isArray(listed) ? listed.filter((address) => typeof address === 'string').map(() => 'suppressed' as const) : [];
}

/** What one event adds to the counters; a metric listed twice counts twice. Delivery outcomes count per recipient. */
export function metricsOf(event: Pick<EventEnvelope, 'type' | 'data'>): AnalyticsMetric[] {
  const first = event.data.first === true;
  switch (event.type) {
    case 'email.sent':
      return ['sent'];
    case 'email.delivered':
      // Accepted by the recipient's server: that is also "sent".
      return ['sent', 'delivered'];
    case 'email.bounced':
      return ['bounced'];
    case 'email.failed':
      return ['failed'];
    case 'email.complained':
      return ['complained'];
    case 'email.suppressed':
      // At delivery: one event per recipient, naming it in `recipient`.
      return event.data.recipients === undefined ? ['suppressed'] : suppressedAtAcceptance(event.data.recipients);
    case 'email.queued':
    case 'email.scheduled':
      return suppressedAtAcceptance(event.data.suppressedRecipients);
    case 'email.opened':
      return first ? ['opens', 'uniqueOpens'] : ['opens'];
    case 'email.clicked':
      return first ? ['clicks', 'uniqueClicks'] : ['clicks'];
    default:
      return [];
  }
}
