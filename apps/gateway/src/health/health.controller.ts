import { Controller, Get, Res } from '@nestjs/common';
import { Public } from '@mailroom/auth';
import { HealthClient } from '../clients/health.client';
import { TakesAnyQuery } from '../http/route-inputs';

interface Reply {
  status(code: number): Reply;
  send(body: unknown): void;
}

// Probes and monitors are not API clients: a parameter one appends is not a typo to catch.
@Controller()
@Public()
@TakesAnyQuery()
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
