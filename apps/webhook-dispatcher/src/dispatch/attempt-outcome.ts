import { parseRetryAfter } from './retry-policy';

/** What one HTTP attempt produced: a status code, or an error before any status. */
export interface HttpResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /**
   * Why there is no status: the timeout ran out, the SSRF guard refused the address, the dispatcher aborted it
   * (shutdown), the network failed, or the dispatcher could not make the request at all (a signing secret it
   * cannot decrypt, say: see dispatcher-fault.ts).
   */
  failure?: 'timeout' | 'refused' | 'aborted' | 'network' | 'dispatcher';
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
  /**
   * Whether the attempt says anything about the endpoint, and so moves the webhook's status, failureCount and
   * lastDelivery*. A dispatcher fault does not: nothing was sent, and the receiver did nothing wrong.
   */
  affectsWebhookHealth: boolean;
}

/**
 * Only a 2xx is a success. A redirect is a failure and is never followed (it
 * could point anywhere, including inside our network).
 */
export function classifyAttempt(result: HttpResult, now: Date): AttemptOutcome {
  const code = result.statusCode;
  if (code === null) {
    return { success: false, gone: false, retryAfterMs: null, error: result.error ?? 'no response', affectsWebhookHealth: result.failure !== 'dispatcher' };
  }
  if (code >= 200 && code < 300) return { success: true, gone: false, retryAfterMs: null, error: null, affectsWebhookHealth: true };
  const throttled = code === 429 || code === 503;
  const error =
    code >= 300 && code < 400 ? `redirect (${code}${result.location ? ` to ${result.location.slice(0, 200)}` : ''}) not followed` : `endpoint answered ${code}`;
  return { success: false, gone: code === 410, retryAfterMs: throttled ? parseRetryAfter(result.retryAfter, now) : null, error, affectsWebhookHealth: true };
}
