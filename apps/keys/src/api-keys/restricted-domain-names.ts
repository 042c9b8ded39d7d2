import { normalizeDomainName } from '@mailroom/contracts';

/**
 * domainRestrictions as domains are stored everywhere else (lower-case, IDN in
 * punycode, no duplicates), so a key restricted to `bücher.de` may send from
 * it and sees its mail: the sender check, the email and domain lists and
 * analytics compare with `xn--bcher-kva.de`.
 */
export function withStoredDomainNames<T extends { domainRestrictions?: string[] }>(input: T): T {
  if (!input.domainRestrictions) return input;
  return Object.assign({}, input, { domainRestrictions: [...new Set(input.domainRestrictions.map((name) => normalizeDomainName(name)))] });
}
