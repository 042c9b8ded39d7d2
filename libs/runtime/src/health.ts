import { Controller, Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { HealthReply, HealthSubjects, ServiceName } from '@mailroom/contracts';
import { DataSource } from 'typeorm';

/**
 * The NATS health handler of a service: it answers only when its own
 * dependencies answer, so the gateway's /health reflects the whole chain.
 */
export function healthController(service: ServiceName): Type<unknown> {
  @Controller()
  class HealthController {
    constructor(private readonly dataSource: DataSource) {}

    @MessagePattern(HealthSubjects[service])
    async check(): Promise<HealthReply> {
      const database = await this.dataSource.query('SELECT 1').then(
        () => 'ok' as const,
        () => 'down' as const,
      );
      return { service, status: database === 'ok' ? 'ok' : 'degraded', checks: { database } };
    }
  }
  return HealthController;
}
