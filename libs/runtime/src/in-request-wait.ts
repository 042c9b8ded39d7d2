/**
 * How long a service may wait, inside one request, on something it does not
 * hold (the domains service's answer to a send, an Idempotency-Key another
 * request is storing): 2 s, and never more than half of RPC_TIMEOUT_MS, the
 * gateway's wait for the whole request. The service's own answer (a 503, a
 * 409 to retry) then comes before the gateway gives up with a 503 while the
 * request goes on and may be stored, which a client would retry as a new one.
 */
export function inRequestWaitMs(rpcTimeoutMs: number): number {
  return Math.min(2000, Math.floor(rpcTimeoutMs / 2));
}
