import { hostHeaderProblem } from '@mailroom/runtime';

interface RequestLike {
  raw: { httpVersion: string; headersDistinct: Record<string, string[] | undefined> };
}

interface ReplyLike {
  header(name: string, value: string): unknown;
}

/**
 * One Host header, or a 400 with the connection closed (hostHeaderProblem):
 * the tracking routes honour a token only under the host it was sent with,
 * so which of two a proxy in front read would be a guess.
 */
export function assertOneHostHeader(request: RequestLike, reply: ReplyLike): void {
  const problem = hostHeaderProblem(request.raw);
  if (!problem) return;
  reply.header('connection', 'close');
  throw problem;
}
