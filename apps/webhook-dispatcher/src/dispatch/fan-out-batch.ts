import type { JsMsg } from 'nats';

/**
 * Takes the next fan-out batch off the front of `buffer`: up to `maxMessages`
 * messages and, past the first, no more than `maxBytes` of their data, so a
 * run of large events is written in several statements rather than one huge one.
 */
export function takeBatch(buffer: JsMsg[], maxMessages: number, maxBytes: number): JsMsg[] {
  let count = 0;
  let bytes = 0;
  while (count < Math.min(maxMessages, buffer.length)) {
    const size = buffer[count].data.length;
    if (count > 0 && bytes + size > maxBytes) break;
    bytes += size;
    count += 1;
  }
  return buffer.splice(0, count);
}
