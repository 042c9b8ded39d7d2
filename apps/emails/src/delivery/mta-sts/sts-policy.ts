export type StsMode = 'enforce' | 'testing' | 'none';

/** A domain's MTA-STS policy (RFC 8461 §3.2), as fetched and as cached. */
export interface StsPolicy {
  mode: StsMode;
  /** MX host patterns, lower-case: `mx.example.com`, or `*.example.com` for any one label in front of it. */
  mx: string[];
  maxAgeSeconds: number;
}

/** RFC 8461 §3.2: max_age is at most 31557600 seconds (about a year). */
export const MAX_POLICY_AGE_SECONDS = 31_557_600;

const MODES: readonly string[] = ['enforce', 'testing', 'none'];
/** `["*."] Domain`: letter-digit-hyphen labels, no empty one. */
const MX_PATTERN = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * The policy a policy file states, or null when it states none that is valid (RFC 8461 §3.2): lines of `key: value`
 * ended by LF or CRLF; `version: STSv1`, a `mode`, a `max_age` and, unless the mode is none, at least one `mx`.
 * Unknown keys are ignored, and of a key other than mx given twice the first counts. An invalid policy is no policy.
 */
export function parseStsPolicy(text: string): StsPolicy | null {
  const first = new Map<string, string>();
  const mx: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const match = /^([A-Za-z0-9_.-]+):[ \t]*(.*?)[ \t]*$/.exec(line);
    if (!match) return null;
    const [, key, value] = match;
    if (key === 'mx') mx.push(value.toLowerCase().replace(/\.$/, ''));
    else if (!first.has(key)) first.set(key, value);
  }
  const mode = first.get('mode') ?? '';
  const maxAge = first.get('max_age') ?? '';
  if (first.get('version') !== 'STSv1' || !MODES.includes(mode) || !/^\d{1,10}$/.test(maxAge)) return null;
  if (Number(maxAge) > MAX_POLICY_AGE_SECONDS || mx.some((pattern) => !MX_PATTERN.test(pattern))) return null;
  if (mode !== 'none' && mx.length === 0) return null;
  return { mode: mode as StsMode, mx, maxAgeSeconds: Number(maxAge) };
}

/**
 * Whether an MX host name matches one of a policy's patterns (RFC 8461 §4.1), case aside and a trailing dot aside: a
 * pattern is the name itself, or `*.` and a domain, which stands for exactly one label in front of that domain
 * (`*.example.com` matches `mx.example.com`, not `example.com` nor `a.mx.example.com`).
 */
export function mxMatchesPolicy(host: string, patterns: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return patterns.some((pattern) => {
    if (!pattern.startsWith('*.')) return name === pattern;
    const dot = name.indexOf('.');
    return dot > 0 && name.slice(dot + 1) === pattern.slice(2);
  });
}
