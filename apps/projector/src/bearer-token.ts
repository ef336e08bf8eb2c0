import { createHash, timingSafeEqual } from 'node:crypto';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Whether an Authorization header carries exactly `Bearer <token>`. Both sides
 * are hashed first so that the comparison takes the same time whatever the
 * lengths, and the token never leaves this function.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  if (typeof header !== 'string') return false;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  const given = m?.[1] ?? '';
  const equal = timingSafeEqual(digest(given), digest(token));
  return m !== null && equal;
}
