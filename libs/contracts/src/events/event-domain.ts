import { parseEmailAddress } from '../emails/email-address';
import type { EventEnvelope } from './event-envelope';

/**
 * Parsing a from costs 1–2 µs, and every email has about three events; a
 * sending product uses a handful of from addresses, so the answers are kept
 * (and forgotten all at once past either bound, which costs a re-parse each).
 * Bounded by characters too: an internal publisher's from may be as large as
 * the event (NATS max_payload, 1 MB), and 10,000 of those were 10 GB kept
 * after their events were long handled, where EVENT_BUFFER_BYTES bounds the
 * events themselves.
 */
const REMEMBERED_FROMS = 10_000;
const REMEMBERED_CHARACTERS = 4_000_000;
const domainsByFrom = new Map<string, string>();
let rememberedCharacters = 0;

function remember(from: string, domain: string): void {
  if (from.length > REMEMBERED_CHARACTERS) return;
  if (domainsByFrom.size >= REMEMBERED_FROMS || rememberedCharacters + from.length > REMEMBERED_CHARACTERS) {
    domainsByFrom.clear();
    rememberedCharacters = 0;
  }
  domainsByFrom.set(from, domain);
  rememberedCharacters += from.length;
}

/**
 * The from domain of an email event, in the form emails.from_domain holds
 * (lower-case, IDN in punycode), so that analytics counters, the `domain`
 * filter, key restrictions and webhook restrictions name one domain one way.
 * It goes through the parser that set from_domain when the email was
 * accepted: `x@bücher.de`, `x@XN--BCHER-KVA.de` and `x@a.com (Ann)` are read
 * as a send reads them. An internal publisher's looser text (an unquoted
 * `Acme, Inc. <x@acme.com>`) is read by its <address>; '' when neither reads.
 */
export function fromDomainOf(from: unknown): string {
  if (typeof from !== 'string') return '';
  let domain = domainsByFrom.get(from);
  if (domain === undefined) {
    const parsed = parseEmailAddress(from) ?? parseEmailAddress(/<([^<>]*)>/.exec(from)?.[1] ?? '');
    domain = parsed?.domain ?? '';
    remember(from, domain);
  }
  return domain;
}

/**
 * The sending domain an event belongs to, in the stored form: the from
 * domain of an `email.*` event, the `name` of a `domain.*` event (read through
 * the same parser, so a name however written compares as stored). '' when the
 * event names none that reads: such an event belongs to no domain, and so to
 * no key or webhook restricted to domains.
 */
export function eventDomainOf(event: Pick<EventEnvelope, 'type' | 'data'>): string {
  if (event.type.startsWith('email.')) return fromDomainOf(event.data.from);
  if (event.type.startsWith('domain.') && typeof event.data.name === 'string') return fromDomainOf(`x@${event.data.name}`);
  return '';
}
