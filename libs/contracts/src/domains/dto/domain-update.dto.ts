import { IsBoolean } from 'class-validator';
import { IsOmittable } from '../../validation/is-omittable';
import { stringRule } from '../../validation/validators';

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
 * TRACKING_BASE_URL itself, goes back to that host. Every field is optional,
 * and `{}` changes nothing (200 with the domain as it is), as on every PATCH.
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
