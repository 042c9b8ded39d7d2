import { MECHANISM, spfTermProblem } from './spf-term-syntax';
import { LookupResult, normalizeName, RecordOutcome } from './verification-rules';

export type TxtLookup = (host: string) => Promise<LookupResult>;

/** RFC 7208 §4.6.4: at most 10 DNS-querying terms per evaluation, or it ends in a permanent error. */
export const MAX_SPF_LOOKUPS = 10;
/** §4.6.4: the terms that count: these mechanisms, and the redirect modifier. */
const LOOKUP_MECHANISMS = new Set(['include', 'a', 'mx', 'ptr', 'exists']);
const PASS_QUALIFIERS = new Set(['', '+']);

const REDIRECT = /^redirect=(.*)$/;

/** RFC 7208 §4.5: a TXT is SPF only if it begins with exactly `v=spf1` ended by a space or its end. */
export function spfRecordsOf(values: string[]): string[] {
  return values.filter((value) => /^v=spf1( |$)/i.test(value));
}

/** Where evaluation is: the domain whose record is read, and the include/redirect route that led there. */
interface Place {
  domain: string;
  route: string[];
}

/** What a record gave: our include reached with pass, not reached, or evaluation stopped (a receiver's permerror or temperror). */
type Branch = { kind: 'reached' } | { kind: 'not-reached' } | { kind: 'stopped'; outcome: RecordOutcome };

const stopped = (problem: string): Branch => ({ kind: 'stopped', outcome: { result: 'fail', problem } });

/**
 * Whether mail from Mailroom passes the domain's SPF record, judged the way a
 * receiver evaluates it (RFC 7208 §4.6, §5.2, §6.1): terms left to right,
 * `include:` and `redirect=` followed into the records they name, until our
 * include is reached. Only what a receiver evaluates for our mail counts, so
 * terms after our include are not looked at (nor counted against the limit).
 * Pure apart from `txt`; it asks at most MAX_SPF_LOOKUPS + 1 names.
 */
export class SpfEvaluator {
  private lookups = 0;

  constructor(
    private readonly ours: string,
    private readonly txt: TxtLookup,
  ) {}

  async check(domain: string): Promise<RecordOutcome> {
    const lookup = await this.txt(domain);
    if (lookup.kind === 'error') return { result: 'error', error: lookup.error };
    if (lookup.kind === 'unreachable') return { result: 'fail', problem: lookup.problem };
    // No record at all is a record to publish, not a problem with one: missingRecords says what to publish.
    const records = lookup.kind === 'found' ? spfRecordsOf(lookup.values) : [];
    if (records.length === 0) return { result: 'fail' };
    if (records.length > 1) return { result: 'fail', problem: `found ${records.length} SPF records; publish exactly one (RFC 7208 §4.5), merging the includes` };
    const branch = await this.evaluate(records[0], { domain: normalizeName(domain), route: [normalizeName(domain)] });
    if (branch.kind === 'reached') return { result: 'pass' };
    if (branch.kind === 'stopped') return branch.outcome;
    return { result: 'fail', problem: `the SPF record does not contain include:${this.ours} (nor does any record it includes or redirects to)` };
  }

  private async evaluate(record: string, place: Place): Promise<Branch> {
    const terms = record.trim().split(/\s+/).slice(1).map((term) => term.toLowerCase());
    // §4.6: receivers parse the whole record before evaluating any of it, so a syntax error after ours counts too.
    const syntax = terms.map(spfTermProblem).find((problem) => problem !== null);
    if (syntax) return stopped(`${where(place) ? `${where(place)}there is` : 'the SPF record has'} ${syntax}, so receivers stop with a permanent error (RFC 7208 §4.6); fix or remove it`);
    const redirects = terms.flatMap((term) => REDIRECT.exec(term)?.[1] ?? []);
    // §6: redirect= and exp= appear at most once each (an exp= is read only when mail fails, but a second one still
    // makes the record a permanent error).
    for (const modifier of ['redirect', 'exp']) {
      const count = terms.filter((term) => term.startsWith(`${modifier}=`)).length;
      if (count > 1) return stopped(`${where(place)}has ${count} ${modifier}= modifiers; a record may have one (RFC 7208 §6)`);
    }
    for (const [index, term] of terms.entries()) {
      const mechanism = MECHANISM.exec(term);
      if (!mechanism) continue;
      const [, qualifier, name, argument] = mechanism;
      // `all` always matches: nothing after it is evaluated, and it overrides redirect= (§5.1, §6.1).
      if (name === 'all') return this.afterAll(terms.slice(index + 1), term, place);
      if (!LOOKUP_MECHANISMS.has(name)) continue;
      if (++this.lookups > MAX_SPF_LOOKUPS) return stopped(this.tooManyLookups());
      if (name !== 'include') continue;
      const target = normalizeName(argument ?? '');
      // §5.2: include takes a domain; without one the record does not parse, a permanent error.
      if (target === '') return stopped(`${where(place)}${term} names no domain, so receivers stop with a permanent error (RFC 7208 §5.2)`);
      if (target === this.ours) {
        if (PASS_QUALIFIERS.has(qualifier)) return { kind: 'reached' };
        return stopped(`${where(place)}${term} has the qualifier ${qualifier}, so mail it covers does not pass SPF (RFC 7208 §4.6.2); write include:${this.ours}`);
      }
      // A macro (§7) expands with the sender's address, which only a receiver knows: assume it does not match.
      if (target.includes('%')) continue;
      const inner = await this.follow(target, place, `include:${target}`);
      if (inner.kind !== 'reached') {
        if (inner.kind === 'stopped') return inner;
        continue;
      }
      // §5.2: a matching include yields its own qualifier, whatever the included record said.
      if (PASS_QUALIFIERS.has(qualifier)) return inner;
      return stopped(`${where(place)}${term} has the qualifier ${qualifier}, so mail that include:${this.ours} covers through it does not pass SPF (RFC 7208 §5.2); drop the ${qualifier}`);
    }
    if (redirects.length === 0) return { kind: 'not-reached' };
    if (normalizeName(redirects[0]) === '') return stopped(`${where(place)}redirect= names no domain, so receivers stop with a permanent error (RFC 7208 §6.1)`);
    // As for an include: a macro expands with what only a receiver knows, so assume it does not lead to ours.
    if (redirects[0].includes('%')) return { kind: 'not-reached' };
    if (++this.lookups > MAX_SPF_LOOKUPS) return stopped(this.tooManyLookups());
    // §6.1: the redirect's record takes the place of this one, with no qualifier of its own. When that is ours, the
    // domain's policy is ours, which passes our mail: as good as include:ours (our record does not include itself).
    const redirect = normalizeName(redirects[0]);
    if (redirect === this.ours) return { kind: 'reached' };
    return this.follow(redirect, place, `redirect=${redirect}`);
  }

  /** Reads the record an include or redirect names; a loop, no record or two of them are permanent errors (§4.5, §5.2, §6.1). */
  private async follow(target: string, from: Place, how: string): Promise<Branch> {
    const route = [...from.route, target];
    // RFC 7208 leaves loops to the lookup limit; naming the loop says what to fix.
    if (from.route.includes(target)) return stopped(`the SPF record's ${how} makes a loop: ${route.join(' → ')}`);
    const lookup = await this.txt(target);
    if (lookup.kind === 'error') return { kind: 'stopped', outcome: { result: 'error', error: lookup.error, host: target } };
    const records = lookup.kind === 'found' ? spfRecordsOf(lookup.values) : [];
    const reached = `${where(from)}${how} leads to ${target}`;
    if (lookup.kind === 'unreachable') return stopped(`${reached}, where ${lookup.problem}`);
    // The only void lookup (§4.6.4) the evaluator meets, and it stops here, so the limit of two is never reached
    // and not counted (a, mx, ptr and exists count towards the 10 but are not resolved).
    if (records.length === 0) return stopped(`${reached}, which has no SPF record, so receivers stop with a permanent error (RFC 7208 §5.2)`);
    if (records.length > 1) return stopped(`${reached}; ${target} has ${records.length} SPF records, so receivers stop with a permanent error (RFC 7208 §4.5)`);
    return this.evaluate(records[0], { domain: target, route });
  }

  /** Our include after `all` is never evaluated; anything else after it does not matter. */
  private afterAll(rest: string[], allTerm: string, place: Place): Branch {
    const oursAfter = rest.some((term) => {
      const mechanism = MECHANISM.exec(term);
      return mechanism?.[2] === 'include' && normalizeName(mechanism[3] ?? '') === this.ours;
    });
    if (!oursAfter) return { kind: 'not-reached' };
    return stopped(`${where(place)}include:${this.ours} comes after ${allTerm}, so it is never evaluated (RFC 7208 §5.1); put it before ${allTerm}`);
  }

  private tooManyLookups(): string {
    return `the SPF record needs more than ${MAX_SPF_LOOKUPS} DNS lookups (include, a, mx, ptr, exists and redirect= count, RFC 7208 §4.6.4) before it reaches include:${this.ours}, so receivers stop with a permanent error; flatten some includes`;
  }
}

/** The prefix that says which record a problem is in: nothing for the domain's own. */
function where(place: Place): string {
  return place.route.length > 1 ? `in the SPF record of ${place.domain} (reached by ${place.route.join(' → ')}), ` : '';
}

/** A fresh evaluator per check: the lookup count is per evaluation (§4.6.4). */
export function checkSpf(domain: string, spfInclude: string, txt: TxtLookup): Promise<RecordOutcome> {
  return new SpfEvaluator(normalizeName(spfInclude), txt).check(domain);
}
