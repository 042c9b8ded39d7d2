import { randomBytes } from 'node:crypto';
import { TrackingTokens, trackingTokensFromConfig } from './tracking-token';

describe(TrackingTokens.name, () => {
  const tokens = new TrackingTokens(randomBytes(32).toString('base64'));

  it('round-trips open and click claims', () => {
    expect(tokens.verify(tokens.sign({ emailId: 'email_1', kind: 'open' }))).toEqual({ emailId: 'email_1', kind: 'open' });
    const click = { emailId: 'email_2', kind: 'click' as const, url: 'https://example.com/a?b=c' };
    expect(tokens.verify(tokens.sign(click))).toEqual(click);
  });

  it('carries the tracking host a token was sent under, and none in a token minted before hosts were bound', () => {
    const bound = { emailId: 'email_3', kind: 'click' as const, url: 'https://example.com/', host: 'links.example.com' };
    expect(tokens.verify(tokens.sign(bound))).toEqual(bound);
    expect(tokens.verify(tokens.sign({ emailId: 'email_3', kind: 'open', host: 'links.example.com' }))).toEqual({ emailId: 'email_3', kind: 'open', host: 'links.example.com' });
    // The three fields of the format before: no host, so the gateway honours it on any host.
    expect(tokens.verify(tokens.sign({ emailId: 'email_3', kind: 'open' }))).not.toHaveProperty('host');
  });

  it('rejects an altered claim, an altered signature and a token from another key', () => {
    const token = tokens.sign({ emailId: 'email_1', kind: 'click', url: 'https://example.com' });
    const [body, signature] = token.split('.');
    const forgedBody = Buffer.from(JSON.stringify(['email_1', 'c', 'https://evil.example'])).toString('base64url');
    expect(tokens.verify(`${forgedBody}.${signature}`)).toBeNull();
    // The first character, not the last two: a random signature ends in "AA" about once in a thousand, and then nothing was altered.
    const alteredSignature = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    expect(tokens.verify(`${body}.${alteredSignature}`)).toBeNull();
    expect(new TrackingTokens(randomBytes(32).toString('base64')).verify(token)).toBeNull();
    expect(tokens.verify('garbage')).toBeNull();
    expect(tokens.verify(`${body}.${signature}.x`)).toBeNull();
  });
});

describe('TrackingTokens with previous keys (ENCRYPTION_KEY_PREVIOUS)', () => {
  const oldKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  const claim = { emailId: 'email_1', kind: 'click' as const, url: 'https://example.com/', host: 'links.example.com' };

  it('verifies a token signed under a previous key, so links in mail sent before the rotation keep working', () => {
    const token = new TrackingTokens(oldKey).sign(claim);
    expect(new TrackingTokens(newKey, [oldKey]).verify(token)).toEqual(claim);
    expect(new TrackingTokens(newKey).verify(token)).toBeNull();
  });

  it('signs with the current key only', () => {
    const token = new TrackingTokens(newKey, [oldKey]).sign(claim);
    expect(new TrackingTokens(newKey).verify(token)).toEqual(claim);
    expect(new TrackingTokens(oldKey).verify(token)).toBeNull();
  });

  it('takes the previous keys from ENCRYPTION_KEY_PREVIOUS', () => {
    const token = new TrackingTokens(oldKey).sign(claim);
    expect(trackingTokensFromConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: [oldKey] }).verify(token)).toEqual(claim);
  });
});

describe(trackingTokensFromConfig.name, () => {
  it('warns that links are signed with the public development key when ENCRYPTION_KEY is unset outside production', () => {
    const warnings: string[] = [];
    trackingTokensFromConfig({ NODE_ENV: 'development', ENCRYPTION_KEY: null }, (message) => warnings.push(message));
    expect(warnings).toEqual([expect.stringMatching(/ENCRYPTION_KEY is unset.*PUBLIC development key.*forge/)]);
  });

  it('stays quiet with a key of its own, and refuses to start without one in production', () => {
    const warnings: string[] = [];
    trackingTokensFromConfig({ NODE_ENV: 'development', ENCRYPTION_KEY: randomBytes(32).toString('base64') }, (message) => warnings.push(message));
    expect(warnings).toEqual([]);
    expect(() => trackingTokensFromConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: null })).toThrow(/ENCRYPTION_KEY is required in production/);
  });
});
