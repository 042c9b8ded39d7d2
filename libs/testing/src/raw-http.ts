import { connect } from 'node:net';

export interface RawHttpAnswer {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  contentType: string;
  /** Parsed as JSON; undefined when the answer has no content (to a HEAD). */
  body: any;
}

/**
 * Writes raw bytes to an HTTP server and reads until it closes the connection: for what fetch cannot send
 * (malformed requests, HTTP/1.0, an Expect fetch refuses). The body is parsed as JSON.
 */
export function rawHttpExchange(baseUrl: string, request: string): Promise<RawHttpAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      if (!chunks.length) return reject(new Error('the server closed the connection without answering'));
      const [head, body] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      const [statusLine, ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, contentType: headers['content-type'] ?? '', body: body === '' ? undefined : JSON.parse(body) });
    });
  });
}
