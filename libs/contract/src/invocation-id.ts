import { ContractInputError } from './errors.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const MAX_TIME = 2 ** 48 - 1;
export const INVOCATION_ID_PREFIX = 'act_';
export const INVOCATION_ID_PATTERN = /^act_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * `act_` + a ULID: 48 bits of milliseconds and 80 caller-supplied random bits
 * in Crockford base32. The core has no randomness, so the shell passes both
 * the clock and the bytes in; ids then sort by acceptance time.
 */
export function newInvocationId(nowMs: number, random: Uint8Array): string {
  if (!Number.isInteger(nowMs) || nowMs < 0 || nowMs > MAX_TIME) {
    throw new ContractInputError('nowMs must be an integer millisecond time within 48 bits');
  }
  if (random.length < 10) {
    throw new ContractInputError('an invocation id needs 10 random bytes');
  }
  let time = '';
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  // 80 bits are exactly 16 groups of 5; read them most significant first.
  let rand = '';
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < 10; i++) {
    acc = (acc << 8) | (random[i] as number);
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      rand += CROCKFORD[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return `${INVOCATION_ID_PREFIX}${time}${rand}`;
}

export function isInvocationId(value: unknown): value is string {
  return typeof value === 'string' && INVOCATION_ID_PATTERN.test(value);
}
