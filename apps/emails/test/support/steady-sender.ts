import { ApiClient } from '@mailroom/testing';

/** What became of one send: the id it was accepted under, or only refusals. */
export interface SendOutcome {
  recipient: string;
  /** Sent with an Idempotency-Key, and so sent again with it after each 5xx (or 409 still in progress) until accepted. */
  keyed: boolean;
  /** The id of the 202 answer. */
  id?: string;
  /** Every answer that was not a 202, as `<status> <error code>`, or what fetch threw. */
  refusals: string[];
}

export interface SteadySenderOptions {
  from: string;
  /** Recipients are `<prefix><n>@<domain>`, one per send, so each message at the SMTP server names its send; keyed sends use the key `<prefix>-<n>`, so two senders of one stack never share one. */
  recipientPrefix: string;
  domain: string;
  /** A new send starts every `intervalMs`, whether or not earlier ones have been answered (an open loop, as independent clients). */
  intervalMs: number;
  /** How long a keyed send keeps trying through 5xx answers before it gives up, and the wait between its tries. */
  keyedRetryMs: number;
  retryIntervalMs: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A 409 telling the client its Idempotency-Key is still being processed, to be retried. */
const KEY_IN_USE = '409 idempotency_key_in_use';

/**
 * A refusal the README allows while a service is away: 503 with the error body a client can act on, or, for a keyed
 * send sent again while its first try was still being stored, the 409 that says to retry it.
 */
export const isCleanUnavailable = (refusal: string) => refusal === '503 service_unavailable' || refusal === KEY_IN_USE;

/** `<status> <error code>`, or the body when it has no code. */
function refusalOf(response: { status: number; body?: { error?: { code?: string } } }): string {
  return `${response.status} ${response.body?.error?.code ?? JSON.stringify(response.body)}`;
}

/**
 * Sends emails through the HTTP API at a steady pace, as a well-behaved client:
 * every other send carries an Idempotency-Key and is sent again with it after a
 * 5xx or a 409 saying the key is still being processed (as the README says to),
 * the others are sent once. Records every answer.
 */
export class SteadySender {
  readonly outcomes: SendOutcome[] = [];
  private streaming = true;

  constructor(
    private readonly api: ApiClient,
    readonly options: SteadySenderOptions,
  ) {}

  get acceptedCount(): number {
    return this.outcomes.filter((outcome) => outcome.id !== undefined).length;
  }

  /** Sends until stop(); resolves once every send has its final answer. */
  async run(): Promise<void> {
    const sends: Promise<void>[] = [];
    for (let n = 0; this.streaming; n++) {
      sends.push(this.send(n));
      await pause(this.options.intervalMs);
    }
    await Promise.all(sends);
  }

  stop(): void {
    this.streaming = false;
  }

  private async send(n: number): Promise<void> {
    const recipient = `${this.options.recipientPrefix}${n}@${this.options.domain}`;
    const outcome: SendOutcome = { recipient, keyed: n % 2 === 0, refusals: [] };
    this.outcomes.push(outcome);
    const body = { from: this.options.from, to: recipient, subject: `Chaos ${n}`, text: `message ${n}` };
    const headers: Record<string, string> = outcome.keyed ? { 'idempotency-key': `${this.options.recipientPrefix}-${n}` } : {};
    const deadline = Date.now() + this.options.keyedRetryMs;
    for (;;) {
      const answer = await this.api.post('/v1/emails', body, { headers }).then(
        (response) => (response.status === 202 ? { id: String(response.body.id) } : { refusal: refusalOf(response) }),
        (error: Error & { cause?: { code?: string } }) => ({ refusal: `fetch failed: ${error.cause?.code ?? error.message}` }),
      );
      if ('id' in answer) {
        outcome.id = answer.id;
        return;
      }
      outcome.refusals.push(answer.refusal);
      const retryable = /^(5\d\d|fetch failed)/.test(answer.refusal) || answer.refusal === KEY_IN_USE;
      if (!outcome.keyed || !retryable || Date.now() > deadline) return;
      await pause(this.options.retryIntervalMs);
    }
  }
}
