import { EMAIL_LIMITS, type AnalyticsMetric, type EventEnvelope } from '@mailroom/contracts';
import { whyNoBounce } from '../bounces/bounce-report';
import { complainedAddress } from '../complaints/complained-address';

/** The most recipients one email has: an email.suppressed of a whole email lists no more. */
const MOST_RECIPIENTS = EMAIL_LIMITS.toMax + EMAIL_LIMITS.ccMax + EMAIL_LIMITS.bccMax;

/**
 * Each recipient an email.suppressed of a whole email lists (its
 * `recipients`): counting such an event once undercounted it, where a
 * recipient suppressed beside others (at acceptance or at delivery) has an
 * email.suppressed of its own. At most as many as an email has: every one is
 * a counter row per tag to write, and an internal publisher's list of
 * thousands (times as many tags) built millions of them in memory for one
 * event, which failed and came back on every redelivery.
 */
function suppressedAtAcceptance(listed: unknown): AnalyticsMetric[] {
  const addresses = Array.isArray(listed) ? listed.filter((address) => typeof address === 'string') : [];
  return addresses.slice(0, MOST_RECIPIENTS).map(() => 'suppressed' as const);
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
      // A report the bounce consumer does not apply (a 4xx DSN, no valid recipient) left every email as it was.
      return whyNoBounce(event.data) ? [] : ['bounced'];
    case 'email.failed':
      return ['failed'];
    case 'email.complained':
      // One naming no address suppressed nobody and marked no email: the complaints consumer ignored it.
      return complainedAddress(event.data) ? ['complained'] : [];
    case 'email.suppressed':
      // One recipient, named in `recipient`: suppressed at delivery, or at acceptance beside recipients who were not.
      return event.data.recipients === undefined ? ['suppressed'] : suppressedAtAcceptance(event.data.recipients);
    case 'email.opened':
      return first ? ['opens', 'uniqueOpens'] : ['opens'];
    case 'email.clicked':
      return first ? ['clicks', 'uniqueClicks'] : ['clicks'];
    default:
      return [];
  }
}
