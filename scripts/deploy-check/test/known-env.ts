import { ENV_SCHEMA } from '@mailroom/config';

/**
 * Names the deployment files may set before libs/config declares them: other
 * parts of issue 7 and the delivery work add them. A name in neither list is
 * a typo the apps would silently ignore.
 */
const ANNOUNCED = ['HEALTH_PORT', 'DNS_SERVERS', 'DKIM_ZONE', 'DKIM_DNS_BIND', 'SPF_INCLUDE', 'ENCRYPTION_KEY', 'TRACKING_BASE_URL', 'DELIVERY_MODE', 'SMTP_RELAY_URL', 'SMTP_MX_PORT'];

export function isKnownVariable(name: string): boolean {
  return name in ENV_SCHEMA || ANNOUNCED.includes(name);
}

/** The libs/config parser's complaint about a value, or null when it parses (or the variable is not declared yet). */
export function variableProblem(name: string, value: string): string | null {
  const spec = (ENV_SCHEMA as Record<string, { parse(raw: string): unknown }>)[name];
  if (!spec) return null;
  try {
    spec.parse(value);
    return null;
  } catch (error) {
    return `${name} ${(error as Error).message}`;
  }
}
