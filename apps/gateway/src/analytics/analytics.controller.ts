import { Controller, Get, Query } from '@nestjs/common';
import { AnalyticsQueryDto, RequestContext } from '@mailroom/contracts';
import { Ctx, RequirePermission } from '@mailroom/auth';
import { AnalyticsClient } from '../clients/analytics.client';

const THIRTY_DAYS_MS = 30 * 24 * 3_600_000;

@Controller('v1/analytics')
@RequirePermission('analytics:read')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsClient) {}

  @Get()
  query(@Ctx() ctx: RequestContext, @Query() query: AnalyticsQueryDto) {
    const toDate = query.to_date ?? new Date().toISOString();
    const fromDate = query.from_date ?? new Date(Date.parse(toDate) - THIRTY_DAYS_MS).toISOString();
    const tags = query.tags?.split(',');
    return this.analytics.query(ctx, { fromDate, toDate, interval: query.interval ?? 'day', domain: query.domain, tags });
  }
}
