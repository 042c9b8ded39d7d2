import { parseRetryAfter } from './retry-policy';

/** What one HTTP attempt produced: a status code, or an error before any status. */
export interface HttpResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** Why there is no status: the timeout ran out, the SSRF guard refused the address, the dispatcher aborted it (shutdown), or the network failed. */
  failure?: 'timeout' | 'refused' | 'aborted' | 'network';
  retryAfter?: string;
  location?: string;
}

export interface AttemptOutcome {
  success: boolean;
  /** 410 Gone: the receiver says the endpoint no longer exists; the webhook is disabled. */
  gone: boolean;
  /** Honoured for 429 and 503 only. */
  retryAfterMs: number | null;
  error: string | null;
}

/**
 * Only a 2xx is a success. A redirect is a failure and is never followed (it
 * could point anywhere, including inside our network).
 */
export function classifyAttempt(result: HttpResult, now: Date): AttemptOutcome {
  const code = result.statusCode;
  if (code === null) return { success: false, gone: false, retryAfterMs: null, error: result.error ?? 'no response' };
  if (code >= 200 && code < 300) return { success: true, gone: false, retryAfterMs: null, error: null };
  const throttled = code === 429 || code === 503;
  const error =
    code >= 300 && code < 400 ? `redirect (${code}${result.location ? ` to ${result.location.slice(0, 200)}` : ''}) not followed` : `endpoint answered ${code}`;
  return { success: false, gone: code === 410, retryAfterMs: throttled ? parseRetryAfter(result.retryAfter, now) : null, error };
}
