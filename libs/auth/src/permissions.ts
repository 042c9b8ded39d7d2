import type { Permission } from '@mailroom/contracts';

export function grants(held: readonly string[], required: Permission): boolean {
  return held.includes('*') || held.includes(required);
}

/** Permissions in `requested` that `held` does not cover. `*` is covered only by `*`. */
export function missingGrants(held: readonly string[], requested: readonly string[]): string[] {
  if (held.includes('*')) return [];
  return requested.filter((permission) => !held.includes(permission));
}
