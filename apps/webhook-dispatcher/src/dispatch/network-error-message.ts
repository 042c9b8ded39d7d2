/**
 * What an attempt's log says about a request that failed before any answer. Node tries the addresses of a host
 * with A and AAAA records in turn (autoSelectFamily) and, when every one fails, raises an AggregateError with an
 * empty message: what happened is in its errors, one per address tried. The addresses named are those the socket
 * was handed, which the SSRF guard, when on, has already let through. The errors are read by their message, not by
 * `instanceof Error`, which was false for them in the running dispatcher (Node 20) though true in a bare script.
 */
export function networkErrorMessage(error: Error): string {
  if (error.message) return error.message;
  const inner: unknown[] = Array.isArray((error as Partial<AggregateError>).errors) ? (error as AggregateError).errors : [];
  const messageOf = (each: unknown) => (each as { message?: unknown } | null)?.message;
  const messages = [...new Set(inner.flatMap((each) => (typeof messageOf(each) === 'string' && messageOf(each) ? [messageOf(each) as string] : [])))];
  if (messages.length) return messages.join('; ');
  return (error as NodeJS.ErrnoException).code ?? error.name;
}
