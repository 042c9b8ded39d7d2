import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { SecretBox } from '@mailroom/auth';
import type { MailroomConfig } from '@mailroom/config';
import { trackingTokensFor } from './tracking-tokens-for';

describe(trackingTokensFor.name, () => {
  it('names the keys it signs and verifies with by the ids the other apps log, never the keys', () => {
    const current = randomBytes(32).toString('base64');
    const previous = randomBytes(32).toString('base64');
    const logger = { log: jest.fn(), warn: jest.fn() } as unknown as Logger;
    trackingTokensFor({ NODE_ENV: 'production', ENCRYPTION_KEY: current, ENCRYPTION_KEY_PREVIOUS: [previous] } as unknown as MailroomConfig, logger);

    const ids = new SecretBox(current, [previous]);
    const [[line]] = (logger.log as jest.Mock).mock.calls;
    expect(line).toBe(`ENCRYPTION_KEY id ${ids.keyId} signs and verifies tracking links; ENCRYPTION_KEY_PREVIOUS ids ${ids.previousKeyIds[0]} open what they sealed`);
    expect(line).not.toContain(current);
    expect(line).not.toContain(previous);
  });
});
