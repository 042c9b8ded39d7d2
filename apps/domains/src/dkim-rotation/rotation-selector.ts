import { dkimSelectorFor } from '../domains/dns-records';

/** The last character of a second-form selector: 36 rotations a month after the first. */
const SUFFIXES = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * The selector of a rotation's new key: `mr<yyyymm>` of the rotation's month, as a domain's first key gets, unless the
 * domain has used it; then `r<yyyymm><a-z0-9>`, the first not used. Both are 8 characters, as long as the first key's,
 * so `<selector>._domainkey.<name>` still fits 253 for every name ≤ 233 (the rule names are held to), and the zone
 * label `<selector>-<ulid>` keeps its 35. `used`: every selector the domain has had, retired ones included, so none
 * comes back (a receiver may still cache an old one's key). Null when all 37 of the month are taken.
 */
export function rotationSelector(now: Date, used: ReadonlySet<string>): string | null {
  const monthly = dkimSelectorFor(now);
  if (!used.has(monthly)) return monthly;
  const stem = `r${monthly.slice(2)}`;
  for (const suffix of SUFFIXES) {
    if (!used.has(`${stem}${suffix}`)) return `${stem}${suffix}`;
  }
  return null;
}
