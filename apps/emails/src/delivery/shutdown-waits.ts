/**
 * How the delivery worker spends SHUTDOWN_TIMEOUT_MS: 40 % waiting for the
 * deliveries in flight, then, for exchanges still running (a server stalling
 * or trickling its reply), a cut-off and 20 % more for their attempts to be
 * recorded; the rest is for the other apps' shutdown steps. At the default
 * 25 s that is 10 s and 5 s. Fixed at 10 s and 5 s, a SHUTDOWN_TIMEOUT_MS
 * under 15 s exited before the cut-off attempts were recorded (their emails
 * then waited out their leases), and one of 80 s (the Kubernetes manifest's)
 * still cut off exchanges a 30 s SMTP_TIMEOUT_MS lets run.
 */
export function shutdownWaits(shutdownTimeoutMs: number): { drainMs: number; recordAfterCutOffMs: number } {
  return { drainMs: Math.floor(shutdownTimeoutMs * 0.4), recordAfterCutOffMs: Math.floor(shutdownTimeoutMs * 0.2) };
}
