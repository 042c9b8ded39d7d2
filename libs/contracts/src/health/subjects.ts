/** Every service answers its health subject; the gateway's GET /health asks them all. */
export const HealthSubjects = {
  keys: 'keys.health.check',
  domains: 'domains.health.check',
  emails: 'emails.health.check',
  'webhook-dispatcher': 'webhooks.health.check',
} as const;

export type ServiceName = keyof typeof HealthSubjects;

export interface HealthReply {
  service: ServiceName;
  status: 'ok' | 'degraded';
  checks: Record<string, 'ok' | 'down'>;
}
