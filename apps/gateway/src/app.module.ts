import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import type { MailroomConfig } from '@mailroom/config';
import { API_KEY_VERIFIER, ApiKeyGuard, AUTH_OPTIONS } from '@mailroom/auth';
import { HttpErrorFilter } from '@mailroom/errors';
import { MAILROOM_CONFIG, MailroomConfigModule } from '@mailroom/runtime';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { AuthFailureLimiter } from './auth/auth-failure-limiter';
import { CachedKeyVerifier } from './auth/cached-key-verifier';
import { RequestAdmission } from './auth/request-admission';
import { RouteRequirements } from './auth/route-requirements';
import { SharedAuthFailures } from './auth/shared-auth-failures';
import { RouteInputs } from './http/route-inputs';
import { HealthClient } from './clients/health.client';
import { KeysClient } from './clients/keys.client';
import { DomainsClient } from './clients/domains.client';
import { DomainsController } from './domains/domains.controller';
import { EmailsClient } from './clients/emails.client';
import { EmailsController } from './emails/emails.controller';
import { SuppressionsController } from './suppressions/suppressions.controller';
import { WebhooksClient } from './clients/webhooks.client';
import { WebhooksController } from './webhooks/webhooks.controller';
import { natsClientModule } from './clients/nats-client.provider';
import { HealthController } from './health/health.controller';
import { DtoValidationPipe } from './http/dto-validation.pipe';
import { RateLimiter } from './rate-limit/rate-limiter';
import { AnalyticsController } from './analytics/analytics.controller';
import { AnalyticsClient } from './clients/analytics.client';
import { TrackingClient } from './clients/tracking.client';
import { TRACKING_TOKENS, TrackingController } from './tracking/tracking.controller';
import { trackingTokensFor } from './tracking/tracking-tokens-for';
import { OpenApiModule } from './openapi/openapi.module';

/** AUTH_FAILURE_LIMIT counts failures per minute. */
const AUTH_FAILURE_WINDOW_MS = 60_000;
/** Clients remembered per replica; past it the oldest windows are forgotten first (README, API keys). */
const AUTH_FAILURE_CLIENTS_REMEMBERED = 100_000;

@Module({})
export class GatewayAppModule {
  static forRoot(config: MailroomConfig): DynamicModule {
    return {
      module: GatewayAppModule,
      imports: [MailroomConfigModule.forRoot(config), natsClientModule(config), DiscoveryModule, OpenApiModule],
      controllers: [HealthController, ApiKeysController, DomainsController, EmailsController, SuppressionsController, WebhooksController, TrackingController, AnalyticsController],
      providers: [
        KeysClient,
        DomainsClient,
        EmailsClient,
        WebhooksClient,
        HealthClient,
        TrackingClient,
        AnalyticsClient,
        { provide: TRACKING_TOKENS, useFactory: () => trackingTokensFor(config) },
        CachedKeyVerifier,
        { provide: API_KEY_VERIFIER, useExisting: CachedKeyVerifier },
        {
          provide: AUTH_OPTIONS,
          inject: [MAILROOM_CONFIG],
          useFactory: (c: MailroomConfig) => ({ testModeEnabled: c.TEST_MODE_ENABLED }),
        },
        RateLimiter,
        {
          provide: AuthFailureLimiter,
          inject: [MAILROOM_CONFIG],
          useFactory: (c: MailroomConfig) => new AuthFailureLimiter(c.AUTH_FAILURE_LIMIT, AUTH_FAILURE_WINDOW_MS, AUTH_FAILURE_CLIENTS_REMEMBERED),
        },
        SharedAuthFailures,
        RouteRequirements,
        RouteInputs,
        RequestAdmission,
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_PIPE, useClass: DtoValidationPipe },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
      ],
    };
  }
}
