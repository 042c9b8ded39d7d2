import { parseEmailAddress, type AnalyticsMetric, type EventEnvelope } from '@mailroom/contracts';

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

/**
 * Parsing a from costs 1–2 µs, and every email has about three events; a
 * sending product uses a handful of from addresses, so the answers are kept
 * (and forgotten all at once past the bound, which costs a re-parse each).
 */
const REMEMBERED_FROMS = 10_000;
const domainsByFrom = new Map<string, string>();

/**
 * The from domain of an email event, in the form emails.from_domain holds
 * (lower-case, IDN in punycode), so that counters, the `domain` filter and
 * key restrictions name one domain one way. It goes through the parser that
 * set from_domain when the email was accepted: `x@bücher.de`,
 * `x@XN--BCHER-KVA.de` and `x@a.com (Ann)` are read as a send reads them.
 * An internal publisher's looser text (an unquoted `Acme, Inc. <x@acme.com>`)
 * is read by its <address>; '' when neither reads.
 */
export function domainOf(from: unknown): string {
  if (typeof from !== 'string') return '';
  let domain = domainsByFrom.get(from);
  if (domain === undefined) {
    const parsed = parseEmailAddress(from) ?? parseEmailAddress(/<([^<>]*)>/.exec(from)?.[1] ?? '');
    domain = parsed?.domain ?? '';
    if (domainsByFrom.size >= REMEMBERED_FROMS) domainsByFrom.clear();
    domainsByFrom.set(from, domain);
  }
  return domain;
}
