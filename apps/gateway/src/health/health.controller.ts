import { Controller, Get, Res } from '@nestjs/common';
import { Public } from '@mailroom/auth';
import { HealthClient } from '../clients/health.client';

interface Reply {
  status(code: number): Reply;
  send(body: unknown): void;
}

@Controller()
@Public()
export class HealthController {
  constructor(private readonly health: HealthClient) {}

  /** 200 once every service answers over NATS (and reaches its database), 503 otherwise. */
  @Get('health')
  async check(@Res() reply: Reply): Promise<void> {
    const services = await this.health.checkAll();
    const ok = Object.values(services).every((status) => status === 'ok');
    reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', services });
  }

  /** Liveness: the process serves HTTP; it does not depend on anything else. */
  @Get('health/live')
  live() {
    return { status: 'ok' };
  }
}
