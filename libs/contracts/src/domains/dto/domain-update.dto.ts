import { IsBoolean } from 'class-validator';
import { IsOmittable } from '../../validation/is-omittable';
import { stringRule } from '../../validation/validators';

/** The fields PATCH /v1/domains/{id} takes; every one is optional, but a body must carry at least one (see domainUpdateProblem). */
export const DOMAIN_UPDATE_FIELDS = ['openTracking', 'clickTracking', 'trackingDomain'] as const;

/**
 * A string or null. Which strings are fine is the domains service's call
 * (requestedTrackingDomain): the host of TRACKING_BASE_URL is accepted
 * whatever it is (`localhost`, an IP address), and only that service reads
 * it. Its own rule name so the OpenAPI schema can say `string | null`.
 */
const IsTrackingDomain = () =>
  stringRule('isTrackingDomain', (value) => value === null || typeof value === 'string', 'must be a domain name such as links.example.com');

/**
 * Tracking switches and the custom tracking domain. trackingDomain: any case
 * and IDN accepted, stored lower-case punycode; null, or the host of
 * TRACKING_BASE_URL itself, goes back to that host.
 */
export class DomainUpdateDto {
  @IsOmittable()
  @IsBoolean({ message: 'must be true or false' })
  openTracking?: boolean;

  @IsOmittable()
  @IsBoolean({ message: 'must be true or false' })
  clickTracking?: boolean;

  @IsOmittable()
  @IsTrackingDomain()
  trackingDomain?: string | null;
}

/**
 * An empty body would change nothing and most likely hides a typo'd client, so
 * it is a 422 like any other invalid body. Not a class-validator rule: it is
 * about the body as a whole, not one field.
 */
export function domainUpdateProblem(input: object): string | null {
  const given = DOMAIN_UPDATE_FIELDS.filter((field) => (input as Record<string, unknown>)[field] !== undefined);
  return given.length ? null : `must set at least one of ${DOMAIN_UPDATE_FIELDS.join(', ')}`;
}
