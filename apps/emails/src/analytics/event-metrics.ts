import type { AnalyticsMetric, EventEnvelope } from '@mailroom/contracts';

/** What one event adds to the counters. Delivery outcomes count per recipient. */
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
      return ['suppressed'];
    case 'email.opened':
      return first ? ['opens', 'uniqueOpens'] : ['opens'];
    case 'email.clicked':
      return first ? ['clicks', 'uniqueClicks'] : ['clicks'];
    default:
      return [];
  }
}
