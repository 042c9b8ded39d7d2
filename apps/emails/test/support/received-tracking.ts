import { RawAnswer, requestAs, TestSmtp } from '@mailroom/testing';

/** Undoes quoted-printable (RFC 2045 §6.7), which nodemailer uses for html parts with long lines. */
export function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The first message `address` received, as its html reads once decoded. */
export function receivedText(smtp: TestSmtp, address: string): string {
  return decodeQuotedPrintable(smtp.messagesFor(address)[0].raw.toString());
}

const escaped = (host: string) => host.replace(/\./g, '\\.');

/** The paths of the open pixel and of the rewritten links a received message puts under `https://<host>`. */
export function trackingPathsIn(raw: string, host: string): { pixel: string | null; links: string[] } {
  const pixel = new RegExp(`<img src="https://${escaped(host)}(/t/o/[^"]+)"`).exec(raw);
  const links = [...raw.matchAll(new RegExp(`href="https://${escaped(host)}(/t/c/[^"]+)"`, 'g'))].map((match) => match[1]);
  return { pixel: pixel?.[1] ?? null, links };
}

/**
 * A tracking route of the gateway at `baseUrl` requested as a reader's
 * browser requests it under `host` (the name the gateway is reached by
 * through a tracking domain's CNAME), with any other headers given.
 */
export function trackingHit(baseUrl: string, path: string, host: string, method = 'GET', headers: Record<string, string> = {}): Promise<RawAnswer> {
  return requestAs(`${baseUrl}${path}`, Object.assign({ host }, headers), method);
}
