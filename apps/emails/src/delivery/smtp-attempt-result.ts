import type { SmtpOutcome } from './smtp-outcome';

/** One SMTP attempt's result across its recipients, as the attempt-duration histogram labels it. */
export type SmtpAttemptResult = 'accepted' | 'deferred' | 'refused' | 'mixed';

const RESULT_OF_KIND = { accepted: 'accepted', temporary: 'deferred', permanent: 'refused' } as const;

/**
 * accepted, deferred or refused when every recipient got that answer; mixed otherwise. Four values, so the
 * histogram stays small however many recipients and replies there are.
 */
export function smtpAttemptResult(outcomes: Iterable<SmtpOutcome>): SmtpAttemptResult {
  const kinds = new Set([...outcomes].map((outcome) => outcome.kind));
  if (kinds.size !== 1) return 'mixed';
  return RESULT_OF_KIND[[...kinds][0]];
}
