import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { join } from 'node:path';
import type { MailroomConfig } from '@mailroom/config';
import { MAILROOM_CONFIG, startWorkerThread } from '@mailroom/runtime';
import { buildMessage } from './build-message';
import { BuildThread } from './build-thread';
import type { DkimSigningKey, OutgoingEmail } from './outgoing-email';

const BUILD_WORKER = join(__dirname, 'message-build.worker');

/**
 * Builds the messages of an emails process: composing and DKIM canonicalization
 * cost the event loop about a third of a millisecond per message, which one
 * event loop that also speaks SMTP and records every attempt cannot spare.
 * With DELIVERY_BUILD_THREADS above 0 they run in that many worker threads,
 * taken in turn, and the event loop only hands the email over and takes the
 * bytes back. With 0 they run on the event loop.
 */
@Injectable()
export class MessageBuilder implements OnApplicationShutdown {
  private readonly threads: BuildThread[];
  private turn = 0;

  constructor(@Inject(MAILROOM_CONFIG) config: MailroomConfig) {
    this.threads = Array.from({ length: config.DELIVERY_BUILD_THREADS }, () => new BuildThread(() => startWorkerThread(BUILD_WORKER)));
  }

  /** The message as it goes on the wire: composed, then signed when there is a key. */
  build(email: OutgoingEmail, key: DkimSigningKey | null): Promise<Buffer> {
    if (!this.threads.length) return buildMessage(email, key);
    const thread = this.threads[this.turn];
    this.turn = (this.turn + 1) % this.threads.length;
    return thread.build(email, key);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.close()));
  }
}
