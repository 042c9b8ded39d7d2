import type { ExchangeLimits } from './smtp-send';

export interface ExchangeSignal {
  /** Aborts at the exchange's deadline or at shutdown, whichever comes first. */
  signal: AbortSignal;
  deadlinePassed(): boolean;
  /** The exchange is over: stops its clock and lets go of the shutdown signal. */
  release(): void;
}

/**
 * One exchange's signal. Not AbortSignal.any([AbortSignal.timeout(…), shutdown]): on Node 20 (the image's) that
 * registers every signal it builds on `shutdown` and never lets go, and `shutdown` lives as long as the process,
 * so each message sent left a weak reference behind (2,000 sends, 2,000 of them). Here the listener is taken off
 * again when the exchange ends.
 */
export function exchangeSignal(limits: ExchangeLimits): ExchangeSignal {
  const controller = new AbortController();
  let deadlinePassed = false;
  const timer = setTimeout(() => {
    deadlinePassed = true;
    controller.abort(new DOMException(`no end within ${limits.messageTimeoutMs} ms`, 'TimeoutError'));
  }, limits.messageTimeoutMs);
  // As AbortSignal.timeout's: a clock on an exchange must not keep a stopping process alive.
  timer.unref();
  const onShutdown = () => controller.abort(limits.shutdown.reason);
  if (limits.shutdown.aborted) onShutdown();
  else limits.shutdown.addEventListener('abort', onShutdown, { once: true });
  return {
    signal: controller.signal,
    deadlinePassed: () => deadlinePassed,
    release: () => {
      clearTimeout(timer);
      limits.shutdown.removeEventListener('abort', onShutdown);
    },
  };
}
