import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { decodeAuthFailure, encodeAuthFailure, GatewayEvents } from '@mailroom/contracts';
import { MAILROOM_CONFIG, connectNats } from '@mailroom/runtime';
import { Events, NatsConnection } from 'nats';
import { AuthFailureLimiter } from './auth-failure-limiter';

/**
 * Makes AUTH_FAILURE_LIMIT hold across gateway replicas: each failure this
 * replica counts is published once on core NATS, and the failures the others
 * publish are counted here too. Nothing waits for NATS: a request that fails
 * costs one publish, one that succeeds costs nothing, and while the
 * connection is down failures are counted only where they happen (README,
 * API keys and authentication).
 */
@Injectable()
export class SharedAuthFailures implements OnModuleInit, OnModuleDestroy {
  private connection?: NatsConnection;
  /**
   * False while the connection is down: a publish made then is not worth
   * making (nats.js holds it, or drops it at a reconnect attempt), and one
   * that got through after the reconnect would hand the others failures
   * whose minute may be long over.
   */
  private connected = false;

  constructor(
    private readonly limiter: AuthFailureLimiter,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.limiter.limit <= 0) return;
    // noEcho: the server does not hand this replica its own failures back, which it counted when they happened.
    const connection = await connectNats(this.config, { noEcho: true });
    this.connection = connection;
    this.connected = true;
    connection.subscribe(GatewayEvents.authenticationFailed, {
      callback: (error, message) => {
        if (!error) this.countRemote(message.data);
      },
    });
    void this.followConnection(connection);
  }

  async onModuleDestroy(): Promise<void> {
    this.connected = false;
    await this.connection?.drain().catch(() => undefined);
  }

  recordFailure(address: string): void {
    this.limiter.recordFailure(address);
    if (!this.connected || !this.connection) return;
    try {
      // Wall time, the one clock replicas share: the others read how old the failure is from it.
      this.connection.publish(GatewayEvents.authenticationFailed, encodeAuthFailure({ address, failedAtMs: Date.now() }));
    } catch {
      // Closed or draining (shutdown): the failure is counted here, which is all a replica without NATS can do.
    }
  }

  private countRemote(data: Uint8Array): void {
    const failure = decodeAuthFailure(data);
    // A failure from before this window could only block a client for a minute it did not earn.
    if (!failure || Date.now() - failure.failedAtMs >= this.limiter.windowMs) return;
    this.limiter.recordFailure(failure.address);
  }

  private async followConnection(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === Events.Disconnect) this.connected = false;
      else if (status.type === Events.Reconnect) this.connected = true;
    }
  }
}
