/** The permission names of the interface. `*` grants everything. */
export const PERMISSIONS = [
  '*',
  'emails:send',
  'emails:read',
  'emails:list',
  'domains:*',
  'api-keys:*',
  'webhooks:*',
  'analytics:read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}
