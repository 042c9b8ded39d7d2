import { Logger } from '@nestjs/common';
import { previousKeyIdsNote, secretBoxFromConfig, TrackingTokens, trackingTokensFromConfig } from '@mailroom/auth';
import type { MailroomConfig } from '@mailroom/config';

/**
 * The gateway's tracking tokens, keyed from ENCRYPTION_KEY, and a boot line naming the key by its id as the other
 * apps that read it do: a gateway left on another key (a rotation's step missed) shows otherwise only as tracked
 * links answering 404.
 */
export function trackingTokensFor(config: MailroomConfig, logger = new Logger('TrackingTokens')): TrackingTokens {
  const tokens = trackingTokensFromConfig(config, (message) => logger.warn(message));
  const box = secretBoxFromConfig(config);
  logger.log(`ENCRYPTION_KEY id ${box.keyId} signs and verifies tracking links${previousKeyIdsNote(box)}`);
  return tokens;
}
