/** What closeOnSignals needs of an app: Nest's close(), wrapped by attachOpsServer to close the ops port too. */
export interface Closable {
  close(): Promise<void>;
}

/**
 * On SIGTERM (Kubernetes, docker stop) or SIGINT, closes the app — which stops
 * taking new work and finishes what is in flight: HTTP requests, NATS
 * handlers, SMTP and webhook deliveries — then exits 0. If closing fails or
 * outlasts `timeoutMs`, it exits 1 anyway: work still in flight then is left
 * to its lease and taken over by another replica, never lost.
 *
 * Nest's enableShutdownHooks() is not used: it runs the hooks without close()
 * (so the ops port stayed open and NATS kept serving while workers drained),
 * and ends by re-raising the signal, so the exit status was never 0.
 */
export function closeOnSignals(app: Closable, name: string, timeoutMs: number): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    // A second signal while draining is ignored: the deadline below still holds.
    if (closing) return;
    closing = true;
    process.stderr.write(`[${name}] ${signal}: finishing work in flight (at most ${timeoutMs} ms)\n`);
    const deadline = setTimeout(() => {
      process.stderr.write(`[${name}] work in flight did not finish within ${timeoutMs} ms; exiting\n`);
      process.exit(1);
    }, timeoutMs);
    deadline.unref();
    app.close().then(
      () => process.exit(0),
      (error: Error) => {
        process.stderr.write(`[${name}] closing failed: ${error.message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
