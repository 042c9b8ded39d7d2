import { signWebhookPayload, verifyWebhookSignature } from './verify-signature';

const secret = 'whsec_current_secret_for_tests_0123456789abcdef';
const oldSecret = 'whsec_previous_secret_for_tests_0123456789abcd';
const body = '{"id":"evt_1","type":"email.delivered","data":{"to":"a@example.com"}}';
const now = 1_763_800_000;

describe(verifyWebhookSignature.name, () => {
  it('accepts the raw body signed with the secret', () => {
    const header = signWebhookPayload(body, [secret], now);
    expect(header).toMatch(/^t=1763800000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(body, header, secret, { now })).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), header, secret, { now })).toBe(true);
  });

  it('accepts the raw body as the Fetch API reads it (await request.arrayBuffer(), Next.js, Hono, Workers, Deno), and as a Uint8Array', () => {
    const header = signWebhookPayload(body, [secret], now);
    const bytes = new TextEncoder().encode(body);
    expect(verifyWebhookSignature(bytes, header, secret, { now })).toBe(true);
    expect(verifyWebhookSignature(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), header, secret, { now })).toBe(true);
    expect(verifyWebhookSignature(new TextEncoder().encode(`${body} `).buffer, header, secret, { now })).toBe(false);
  });

  it('rejects a wrong secret', () => {
    const header = signWebhookPayload(body, [secret], now);
    expect(verifyWebhookSignature(body, header, 'whsec_wrong', { now })).toBe(false);
  });

  it('rejects a body that was parsed and serialized again', () => {
    const header = signWebhookPayload(body, [secret], now);
    const reserialized = JSON.stringify(JSON.parse(body), null, 2);
    expect(verifyWebhookSignature(reserialized, header, secret, { now })).toBe(false);
  });

  it('rejects a timestamp older (or further ahead) than the tolerance', () => {
    const header = signWebhookPayload(body, [secret], now - 301);
    expect(verifyWebhookSignature(body, header, secret, { now, toleranceSeconds: 300 })).toBe(false);
    expect(verifyWebhookSignature(body, signWebhookPayload(body, [secret], now - 299), secret, { now })).toBe(true);
    expect(verifyWebhookSignature(body, signWebhookPayload(body, [secret], now + 301), secret, { now })).toBe(false);
  });

  it('keeps the 5-minute window when the tolerance given is not a number (an unset variable read with Number()): it never opens to any age', () => {
    const hourOld = signWebhookPayload(body, [secret], now - 3600);
    expect(verifyWebhookSignature(body, hourOld, secret, { now, toleranceSeconds: Number(undefined) })).toBe(false);
    expect(verifyWebhookSignature(body, hourOld, secret, { now, toleranceSeconds: '600' as unknown as number })).toBe(false);
    expect(verifyWebhookSignature(body, signWebhookPayload(body, [secret], now - 299), secret, { now, toleranceSeconds: Number.NaN })).toBe(true);
  });

  it('accepts either secret during a rotation (several v1 values)', () => {
    const header = signWebhookPayload(body, [secret, oldSecret], now);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifyWebhookSignature(body, header, secret, { now })).toBe(true);
    expect(verifyWebhookSignature(body, header, oldSecret, { now })).toBe(true);
  });

  it('rejects a body that is not the raw bytes: false, never a TypeError', () => {
    const header = signWebhookPayload(body, [secret], now);
    // A body parser ran first (express.json()), or express.raw() left its {} for a request of another content type.
    expect(verifyWebhookSignature(JSON.parse(body) as unknown as string, header, secret, { now })).toBe(false);
    expect(verifyWebhookSignature({} as unknown as string, header, secret, { now })).toBe(false);
    expect(verifyWebhookSignature(undefined as unknown as string, header, secret, { now })).toBe(false);
    expect(verifyWebhookSignature(new Uint8Array(Buffer.from(body)) as unknown as Buffer, header, secret, { now })).toBe(true);
  });

  it('rejects a body changed by one byte', () => {
    const header = signWebhookPayload(body, [secret], now);
    const changed = Buffer.from(body);
    changed[changed.length - 2] ^= 1;
    expect(verifyWebhookSignature(changed, header, secret, { now })).toBe(false);
  });

  it('rejects a missing, empty or malformed header, and a replayed signature with a new timestamp', () => {
    expect(verifyWebhookSignature(body, undefined, secret, { now })).toBe(false);
    expect(verifyWebhookSignature(body, '', secret, { now })).toBe(false);
    expect(verifyWebhookSignature(body, 'v1=abc', secret, { now })).toBe(false);
    // From plain JavaScript, whatever a framework hands over: false, never a TypeError.
    expect(verifyWebhookSignature(body, 42 as unknown as string, secret, { now })).toBe(false);
    expect(verifyWebhookSignature(body, {} as unknown as string, secret, { now })).toBe(false);
    const signature = signWebhookPayload(body, [secret], now - 1000).split(',')[1];
    expect(verifyWebhookSignature(body, `t=${now},${signature}`, secret, { now })).toBe(false);
  });
});
