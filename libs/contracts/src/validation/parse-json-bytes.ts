/** One decoder for every message: decoding is stateless without `stream`, and this runs on every RPC reply. */
const utf8 = new TextDecoder();

/**
 * The JSON value in a message's bytes, or undefined when they are not JSON
 * (no JSON text parses to undefined). For messages anyone on NATS can
 * publish: a subscriber callback that throws closes nats.js's reader.
 */
export function parseJsonBytes(data: Uint8Array): unknown {
  try {
    return JSON.parse(utf8.decode(data));
  } catch {
    return undefined;
  }
}
