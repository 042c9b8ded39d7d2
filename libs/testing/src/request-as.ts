import { IncomingHttpHeaders, request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * An HTTP request with the headers exactly as given, a `host` among them:
 * fetch always writes the URL's own Host, so it cannot show what a request
 * that reached the gateway under another name (a tracking domain's CNAME, a
 * reverse proxy) looks like. Redirects are not followed.
 */
export function requestAs(url: string, headers: Record<string, string>, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method, headers, signal: AbortSignal.timeout(30_000) }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end();
  });
}
