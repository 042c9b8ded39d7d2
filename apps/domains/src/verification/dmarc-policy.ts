import { tagList } from './tag-list';

const POLICY = /^(none|quarantine|reject)$/i;
/** RFC 7489 §6.4: `dmarc-uri = URI [ "!" 1*DIGIT [ "k" / "m" / "g" / "t" ] ]`; a URI has a scheme (RFC 3986 §3). */
const SIZE_LIMIT = /![0-9]+[kmgt]?$/i;
const URI = /^[a-z][a-z0-9+.-]*:[^\s!,;]+$/i;

/**
 * Why receivers apply no policy from a DMARC record, or null when they do
 * (RFC 7489 §6.6.3 step 6): a record whose `p=` is missing or invalid, or
 * whose `sp=` is invalid, is applied as p=none when its `rua=` holds at least
 * one syntactically valid reporting URI, and otherwise not at all. Tag names
 * and the policy values are case-insensitive (§6.4 ABNF quoted strings).
 */
export function dmarcPolicyProblem(record: string): string | null {
  const tags = new Map(tagList(record).map(([name, value]) => [name.toLowerCase(), value]));
  const fault = policyFault(tags.get('p'), tags.get('sp'));
  if (!fault) return null;
  const rua = tags.get('rua');
  if (rua !== undefined && rua.split(',').some(isReportingUri)) return null;
  const noReports = rua === undefined ? 'it has no rua=' : `its rua=${rua} holds no valid reporting URI (${uriHint(rua)})`;
  return `${fault.problem}, and ${noReports}, so receivers apply no DMARC policy (RFC 7489 §6.6.3 step 6); ${fault.fix}`;
}

function policyFault(p: string | undefined, sp: string | undefined): { problem: string; fix: string } | null {
  if (p === undefined) return { problem: 'the DMARC record has no p= tag', fix: 'add p=none' };
  if (!POLICY.test(p)) return { problem: `the DMARC record's p=${p} is not none, quarantine or reject`, fix: 'write p=none, p=quarantine or p=reject' };
  if (sp !== undefined && !POLICY.test(sp)) return { problem: `the DMARC record's sp=${sp} is not none, quarantine or reject`, fix: 'fix sp= or remove it' };
  return null;
}

function isReportingUri(entry: string): boolean {
  return URI.test(entry.trim().replace(SIZE_LIMIT, ''));
}

/** The usual slip is a bare address where a mailto: URI belongs. */
function uriHint(rua: string): string {
  const first = rua.split(',')[0].trim();
  return /^[^\s:@]+@[^\s:@]+$/.test(first) ? `write mailto:${first}` : 'a mailto: URI';
}
