import { randomFillSync } from 'node:crypto';

/** Crockford's base32, as the ULID spec encodes: no I, L, O or U. */
const ENCODING = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_LENGTH = 10;
const RANDOM_LENGTH = 16;
const TIME_MAX = 2 ** 48 - 1;

/**
 * One random byte per random character, masked to 5 bits: 256 is a multiple
 * of 32, so every character stays uniform. Filling 256 ids' worth at once
 * replaces a crypto call per character (the `ulid` package's cost) with one
 * per 256 ids.
 */
const POOL_IDS = 256;
const pool = Buffer.alloc(POOL_IDS * RANDOM_LENGTH);
let poolOffset = pool.length;

/** Ids made in the same millisecond share their time prefix, so it is encoded once. */
let cachedMs = -1;
let cachedTime = '';

/** The first `length` characters of a ULID made at `ms`: its time, most significant first. */
export function encodeTime(ms: number, length: number = TIME_LENGTH): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > TIME_MAX) throw new Error(`Cannot encode ${ms} as a ULID time: it must be an integer in [0, 2^48)`);
  let rest = ms;
  let encoded = '';
  for (let index = 0; index < length; index++) {
    const digit = rest % 32;
    encoded = ENCODING[digit] + encoded;
    rest = (rest - digit) / 32;
  }
  return encoded;
}

/**
 * The lowest id of the form `prefix` + ULID a row made at `ms` can have, so
 * `id < firstIdAt(prefix, ms)` holds exactly for ids made earlier: the bound
 * a retention purge walks the primary key up to.
 */
export function firstIdAt(prefix: string, ms: number): string {
  return `${prefix}${encodeTime(Math.max(0, ms))}`;
}

/**
 * A ULID (https://github.com/ulid/spec): 48 bits of milliseconds, then 80
 * random bits, 26 characters that sort by time. Ids within one millisecond
 * are not ordered among themselves (no monotonic counter); 80 random bits
 * keep them unique.
 */
export function ulid(ms: number = Date.now()): string {
  if (ms !== cachedMs) {
    cachedTime = encodeTime(ms);
    cachedMs = ms;
  }
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  let random = '';
  for (let end = poolOffset + RANDOM_LENGTH; poolOffset < end; poolOffset++) random += ENCODING[pool[poolOffset] & 31];
  return cachedTime + random;
}
