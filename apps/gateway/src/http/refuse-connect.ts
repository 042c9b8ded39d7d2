import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { answerOnSocketAndClose } from '@mailroom/runtime';
import type { AllowedMethods } from './allowed-methods';
import { unroutedRefusal } from './refuse-unrouted';

/**
 * CONNECT asks for a tunnel (RFC 9110 §9.3.6), which only a proxy opens. Node
 * hands it to the server's `connect` listeners rather than to a route, and
 * with none it closed the connection without a word. It is answered as any
 * other method a path is not served with: 404 when the target names no path of
 * the API (`CONNECT example.com:443` included), else 405 with `Allow`; then the
 * connection is closed, since what follows a CONNECT is meant for the tunnel.
 */
export function refuseConnect(server: Server, allowedMethods: () => AllowedMethods): void {
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const { error, allow } = unroutedRefusal('CONNECT', request.url ?? '', allowedMethods());
    answerOnSocketAndClose(socket, error, { headerLines: allow === undefined ? '' : `Allow: ${allow}\r\n` });
  });
}
